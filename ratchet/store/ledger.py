"""The ledger's rows: runs, one row per model call (or a count in the run's rollup), and the reads over both.

A row is written by a settle (ratchet/store/reservations.py), by the spool for a call no money is held for
(`spool_row`, ratchet/store/spool.py) or, for a cache hit, by record_hit; compact folds old rows into the
rollups, so every read here counts rows and rollups alike.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from contextlib import suppress
from pathlib import Path

from pydantic import ValidationError

from ratchet.store.connection import BUSY_TIMEOUT_S, OWNERS_DIR, StoreConnection
from ratchet.store.models import CompactResult, LedgerEntry
from ratchet.store.owners import owner_alive
from ratchet.store.spool import SPOOL_BATCH, SpoolFile, spool_path, spooled_owners, whole_lines

_LEDGER_COLUMNS = [name for name in LedgerEntry.model_fields if name != "id"]
_INSERT_ROW = f"INSERT INTO model_calls ({', '.join(_LEDGER_COLUMNS)}) VALUES ({', '.join('?' * len(_LEDGER_COLUMNS))})"
_FOLDED = "INSERT INTO spools VALUES (?, ?) ON CONFLICT(owner) DO UPDATE SET folded = excluded.folded"
_ROLLUP_UPSERT = (
    " ON CONFLICT(run_id, purpose, tier, model, simulated, cache_hit, status) DO UPDATE SET"
    " calls = calls + excluded.calls, tokens_in = tokens_in + excluded.tokens_in,"
    " tokens_out = tokens_out + excluded.tokens_out, tokens_cached = tokens_cached + excluded.tokens_cached,"
    " cost_usd = cost_usd + excluded.cost_usd, latency_ms = latency_ms + excluded.latency_ms"
)


class Ledger(StoreConnection):
    """Runs and model-call rows of one store (the money they hold: Reservations)."""

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        self._spooled: list[list[object]] = []  # rows in the spool's file, not yet in the ledger
        self._spool: SpoolFile | None = None
        super().__init__(path, busy_timeout_s=busy_timeout_s)
        if self.owner is not None:  # without an owner lock no later Store could tell the spool's owner is gone
            self._spool = SpoolFile(spool_path(path.parent, self.owner))
        self._fold_dead_spools()

    def close(self) -> None:
        try:
            self._retire_spool()
        finally:
            super().close()

    # runs -----------------------------------------------------------------------------------

    def start_run(self, run_id: str, *, upstream: str) -> None:
        """Record (or re-open) a run, owned by this process."""
        with self._write(synced=False) as db:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET pid = excluded.pid",
                (run_id, time.time(), os.getpid(), upstream),
            )

    # rows -----------------------------------------------------------------------------------

    def record_hit(self, entry: LedgerEntry, *, ledger_row: bool, calls: int = 1) -> None:
        """Count a cache hit ($0, no reservation): a ledger row when asked, else `calls` more in the run's
        rollup (a batch of hits, `entry` their summed tokens and latency). Never synced on its own: losing it
        loses no money, and the next synced commit keeps it."""
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        with self._write(synced=False) as db:
            if ledger_row:
                self._insert_row(db, entry)
            else:
                db.execute(
                    "INSERT INTO call_rollups (run_id, purpose, tier, model, simulated, cache_hit, status, calls,"
                    " tokens_in, tokens_out, tokens_cached, cost_usd, latency_ms) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?,"
                    " ?, ?, ?)" + _ROLLUP_UPSERT,
                    (
                        entry.run_id,
                        entry.purpose,
                        entry.tier,
                        entry.model,
                        int(entry.simulated),
                        entry.status,
                        calls,
                        entry.tokens_in,
                        entry.tokens_out,
                        entry.tokens_cached,
                        entry.cost_usd,
                        entry.latency_ms,
                    ),
                )

    def _insert_row(self, db: sqlite3.Connection, entry: LedgerEntry) -> int:
        cursor = db.execute(_INSERT_ROW, _row_values(entry))
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    # the spool ---------------------------------------------------------------------------------

    def spool_row(self, entry: LedgerEntry) -> None:
        """A row no reservation covers and no cap counts (a simulated call of a run without a budget): one line
        in this Store's spool, joining the ledger with its next write (ratchet.store.spool). Where the spool
        cannot be written it is a settle's unsynced commit, as before."""
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        values = _row_values(entry)
        line = (json.dumps(dict(zip(_LEDGER_COLUMNS, values, strict=True)), separators=(",", ":")) + "\n").encode()
        with self._lock:
            if self._spool is None or not self._spool.append(line):
                with self._write(synced=False) as db:
                    db.execute(_INSERT_ROW, values)
                return
            self._spooled.append(values)
            full = len(self._spooled) >= SPOOL_BATCH
        if full:
            self.fold_spool()

    def fold_spool(self) -> None:
        """Write the spooled rows into the ledger now (Gateway.flush and close; any read or write does too)."""
        if self._spooled:
            with self._write(synced=False):
                pass

    def _before_read(self) -> None:
        self.fold_spool()

    def _join_spooled(self, db: sqlite3.Connection) -> int:
        count = len(self._spooled)
        if not count or self._spool is None:
            return 0
        db.executemany(_INSERT_ROW, self._spooled)
        db.execute(_FOLDED, (self.owner, self._spool.size))  # the same commit: never folded twice
        return count

    def _spooled_joined(self, count: int) -> None:
        del self._spooled[:count]

    def _retire_spool(self) -> None:
        """At close: fold what waits, then remove the file and its mark (in that order: a mark left by a crash
        between the two names no file and is dropped by the next Store; a file left names its mark)."""
        spool = self._spool
        if spool is None:
            return
        try:
            self.fold_spool()
            if spool.used:
                spool.remove()
                with self._write(synced=False) as db:
                    db.execute("DELETE FROM spools WHERE owner = ?", (self.owner,))
        finally:
            spool.close()

    def _fold_dead_spools(self) -> None:
        """Fold the spools of Stores whose owner is gone (a kill -9 left them) and drop marks naming no file."""
        home = self.path.parent
        owners = home / OWNERS_DIR
        for owner in spooled_owners(home):
            if owner == self.owner or owner_alive(owners, owner):
                continue
            path = spool_path(home, owner)
            with self._write(synced=False) as db:  # reads the mark and the file inside: one fold at a time
                row = db.execute("SELECT folded FROM spools WHERE owner = ?", (owner,)).fetchone()
                start = int(row[0]) if row is not None else 0
                lines, used = whole_lines(path, start)
                rows = [values for values in map(_spooled_values, lines) if values is not None]
                db.executemany(_INSERT_ROW, rows)
                db.execute(_FOLDED, (owner, start + used))
            with suppress(OSError):
                path.unlink()
            with self._write(synced=False) as db:
                db.execute("DELETE FROM spools WHERE owner = ?", (owner,))
        with self._read() as db:
            marked = [str(row[0]) for row in db.execute("SELECT owner FROM spools").fetchall()]
        spooled = set(spooled_owners(home))
        stale = [owner for owner in marked if owner not in spooled and not owner_alive(owners, owner)]
        if stale:
            with self._write(synced=False) as db:
                db.executemany("DELETE FROM spools WHERE owner = ?", [(owner,) for owner in stale])

    def calls(self, run_id: str, *, purpose: str | None = None) -> int:
        """How many model calls a run made (cache hits and errors included), rows and rollups alike."""
        where, args = "run_id = ?", [run_id]
        if purpose is not None:
            where, args = where + " AND purpose = ?", [*args, purpose]
        with self._read() as db:
            rows = db.execute(f"SELECT COUNT(*) FROM model_calls WHERE {where}", args).fetchone()[0]
            rolled = db.execute(f"SELECT COALESCE(SUM(calls), 0) FROM call_rollups WHERE {where}", args).fetchone()[0]
        return int(rows) + int(rolled)

    def cache_hits(self, run_id: str) -> int:
        """How many of a run's calls were answered from the cache."""
        with self._read() as db:
            rows = db.execute(
                "SELECT COUNT(*) FROM model_calls WHERE run_id = ? AND cache_hit = 1", (run_id,)
            ).fetchone()[0]
            rolled = db.execute(
                "SELECT COALESCE(SUM(calls), 0) FROM call_rollups WHERE run_id = ? AND cache_hit = 1", (run_id,)
            ).fetchone()[0]
        return int(rows) + int(rolled)

    def observed_tokens(self, tier: str) -> tuple[int, int] | None:
        """Mean tokens in and out of a tier's answered, uncached calls (rows and rollups), or None."""
        where = "tier = ? AND status = 'ok' AND cache_hit = 0"
        with self._read() as db:
            n, t_in, t_out = db.execute(
                f"SELECT COUNT(*), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0) FROM model_calls"
                f" WHERE {where}",
                (tier,),
            ).fetchone()
            m, r_in, r_out = db.execute(
                f"SELECT COALESCE(SUM(calls), 0), COALESCE(SUM(tokens_in), 0), COALESCE(SUM(tokens_out), 0)"
                f" FROM call_rollups WHERE {where}",
                (tier,),
            ).fetchone()
        count = int(n) + int(m)
        if not count:
            return None
        return round((t_in + r_in) / count), round((t_out + r_out) / count)

    def compact(self, *, before_ts: float) -> CompactResult:
        """Fold the ledger rows written before `before_ts` into per-run rollups and drop them.

        Spend totals are untouched (nothing subtracts from them) and reservations are never
        compacted, so the cap, `run_spend` and orphan recovery see the same money after as
        before; `calls`, `cache_hits` and `observed_tokens` count the rollups too. One synced
        transaction, then the freed pages are returned to the file system.
        """
        with self._write() as db:
            db.execute(
                "INSERT INTO call_rollups (run_id, purpose, tier, model, simulated, cache_hit, status, calls,"
                " tokens_in, tokens_out, tokens_cached, cost_usd, latency_ms)"
                " SELECT run_id, purpose, tier, model, simulated, cache_hit, status, COUNT(*), SUM(tokens_in),"
                " SUM(tokens_out), SUM(tokens_cached), SUM(cost_usd), SUM(latency_ms) FROM model_calls WHERE ts < ?"
                " GROUP BY run_id, purpose, tier, model, simulated, cache_hit, status" + _ROLLUP_UPSERT,
                (before_ts,),
            )
            dropped = db.execute("DELETE FROM model_calls WHERE ts < ?", (before_ts,)).rowcount
            kept = db.execute("SELECT COUNT(*) FROM model_calls").fetchone()[0]
        if dropped:
            with self._turn(), self._faults():
                self._db.execute("VACUUM")
        return CompactResult(rows_dropped=dropped, rows_kept=int(kept))

    def ledger(self, run_id: str | None = None) -> list[LedgerEntry]:
        """Ledger rows in order, for one run or all."""
        columns = ["id", *_LEDGER_COLUMNS]
        sql = f"SELECT {', '.join(columns)} FROM model_calls"
        args: tuple[str, ...] = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            args = (run_id,)
        with self._read() as db:
            rows = db.execute(sql + " ORDER BY id", args).fetchall()
        return [LedgerEntry.model_validate(dict(zip(columns, row, strict=True))) for row in rows]


def _row_values(entry: LedgerEntry) -> list[object]:
    values = entry.model_dump()
    return [int(v) if isinstance(v, bool) else v for v in (values[name] for name in _LEDGER_COLUMNS)]


def _spooled_values(line: bytes) -> list[object] | None:
    """A spool line's row, or None for a line a power cut tore (its simulated dollars are lost, as documented)."""
    try:
        return _row_values(LedgerEntry.model_validate(json.loads(line)))
    except (ValueError, ValidationError):
        return None
