"""The SQLite store: runs, the model-call ledger and budget reservations.

WAL, so a committed transaction survives kill -9. Power loss is covered by when we sync: a
reservation is synced (synchronous=FULL) before its call goes out, and so is any row that no
reservation covers; the settle that replaces a reservation is not, and rides the next sync (a
group commit). WAL is replayed as a prefix, so a settle lost to a power cut leaves its
reservation standing, and that is charged at its worst case on the next start: spend can go up
after a crash, never down. The schema grows only by appending named migrations
(ratchet/store_schema.py); running totals kept by triggers make a reservation O(1).

Money has two pools: real spend (live upstream) and simulated spend (the simulator priced
at catalog prices). The global cap only ever counts real spend, so offline smoke runs can
never eat into the money a live run may spend.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ratchet.errors import InfraError, InputError
from ratchet.locks import open_turns, turn
from ratchet.store_models import CompactResult, LedgerEntry, Refusal, Reservation
from ratchet.store_owners import hold_owner_lock, owner_alive, pid_alive
from ratchet.store_schema import MIGRATIONS, statements

__all__ = [
    "BUSY_TIMEOUT_S",
    "MIGRATIONS",
    "OWNERS_DIR",
    "STORE_FILE",
    "CompactResult",
    "LedgerEntry",
    "Refusal",
    "Reservation",
    "Store",
    "ensure_work_area",
    "open_store",
]

STORE_FILE = "ratchet.sqlite"
BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another process's transaction before the ledger counts as locked."""

OWNERS_DIR = "owners"
TURNS_SUFFIX = ".turns"
"""<home>/ratchet.sqlite.turns: the file every Store queues on (flock) before it touches the ledger."""


_LEDGER_COLUMNS = [name for name in LedgerEntry.model_fields if name != "id"]
_ROLLUP_UPSERT = (
    " ON CONFLICT(run_id, purpose, tier, model, simulated, cache_hit, status) DO UPDATE SET"
    " calls = calls + excluded.calls, tokens_in = tokens_in + excluded.tokens_in,"
    " tokens_out = tokens_out + excluded.tokens_out, tokens_cached = tokens_cached + excluded.tokens_cached,"
    " cost_usd = cost_usd + excluded.cost_usd, latency_ms = latency_ms + excluded.latency_ms"
)


class Store:
    """One SQLite file. Thread-safe: one connection behind a lock; cross-process safe via
    BEGIN IMMEDIATE (the reservation check and insert are one write transaction).

    Processes take turns at the file through a flock queue (ratchet.locks.turn: exclusive to write,
    shared to read) before SQLite's own lock is asked for. Why: SQLite's busy handler polls with
    growing sleeps, so under 24 parallel checks a writer that had waited longest kept losing to fresh
    ones until its busy timeout ran out; a settle that failed so left its reservation behind, charged
    on the next start as if its process had died. In the queue a Ratchet writer waits only for the
    short transactions ahead of it; the busy timeout is left for what does not queue (another
    program, an older Ratchet).

    Every SQLite failure leaves as an InfraError naming the file: a file that is not a Ratchet
    ledger (garbage, another program's database, a newer schema) is refused before anything is
    written to it, and a lock held longer than `busy_timeout_s` is reported, not waited out.
    """

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        ensure_work_area(path.parent)
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        self._turns_fd = open_turns(path.with_name(path.name + TURNS_SUFFIX))
        self._turn_depth = 0  # a turn is taken once, by the outermost _turn (under self._lock)
        token = uuid.uuid4().hex
        self._owner_fd = hold_owner_lock(path.parent / OWNERS_DIR / f"{token}.lock")
        # Without a held lock file the reservations name no owner and recovery falls back to the pid.
        self.owner: str | None = token if self._owner_fd is not None else None
        with self._faults():
            self._db = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            with self._turn(), self._faults():
                self._db.execute(f"PRAGMA busy_timeout={round(busy_timeout_s * 1000)}")
                self._refuse_foreign()  # before the WAL switch: that rewrites the file's header
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._synced = True
            self._migrate()
        except BaseException:
            self._db.close()
            self._drop_owner_lock()
            self._drop_turns()
            raise

    def close(self) -> None:
        with self._turn():  # the last connection to close checkpoints the WAL into the file
            self._db.close()
        with self._lock:
            self._drop_owner_lock()
            self._drop_turns()

    @contextmanager
    def _turn(self, *, shared: bool = False) -> Iterator[None]:
        """This Store's turn at the ledger among all processes (exclusive unless `shared`); re-entrant."""
        with self._lock:
            if self._turn_depth:
                self._turn_depth += 1
                try:
                    yield
                finally:
                    self._turn_depth -= 1
                return
            with turn(self._turns_fd, shared=shared):
                self._turn_depth = 1
                try:
                    yield
                finally:
                    self._turn_depth = 0

    def _drop_turns(self) -> None:
        if self._turns_fd is not None:
            os.close(self._turns_fd)
            self._turns_fd = None

    def _drop_owner_lock(self) -> None:
        if self._owner_fd is None:
            return
        with suppress(OSError):
            (self.path.parent / OWNERS_DIR / f"{self.owner}.lock").unlink()
        os.close(self._owner_fd)  # closing the descriptor releases the flock
        self._owner_fd = None

    @contextmanager
    def _faults(self) -> Iterator[None]:
        """sqlite3 errors -> one InfraError line naming the ledger and how to recover."""
        try:
            yield
        except sqlite3.Error as exc:
            failure = exc
        else:
            return
        raise InfraError(_fault_message(failure, self.busy_timeout_s), path=self.path) from None

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._turn(shared=True), self._faults():
            yield self._db

    @contextmanager
    def _write(self, *, synced: bool = True) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction; `synced=False` commits without an fsync of its own (it is made
        durable by the next synced commit, or by a checkpoint), for writes a power cut may lose."""
        with self._turn(), self._faults():
            if synced != self._synced:
                self._db.execute(f"PRAGMA synchronous={'FULL' if synced else 'NORMAL'}")
                self._synced = synced
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def _refuse_foreign(self) -> None:
        """Raise unless the file is empty or a ledger whose migrations this Ratchet knows."""
        db = self._db
        tables = sorted(
            row[0]
            for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        )
        if not tables:
            return
        if "migrations" not in tables or [row[1] for row in db.execute("PRAGMA table_info(migrations)")] != [
            "name",
            "applied_at",
        ]:
            raise InfraError(
                f"not a Ratchet ledger (it has tables {', '.join(tables[:5])}); {_MOVE_AWAY}", path=self.path
            )
        applied = [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY rowid")]
        known = [name for name, _ in MIGRATIONS]
        unknown = [name for name in applied if name not in known]
        if not unknown:
            return
        if applied[0] != known[0]:
            raise InfraError(
                f"not a Ratchet ledger (unknown migrations {', '.join(unknown[:3])}); {_MOVE_AWAY}", path=self.path
            )
        raise InfraError(
            f"ledger was written by a newer Ratchet (unknown migration {', '.join(unknown[:3])}); "
            "upgrade Ratchet, or move the file away to start a new ledger",
            path=self.path,
        )

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
            done = {row[0] for row in db.execute("SELECT name FROM migrations")}
            for name, sql in MIGRATIONS:
                if name in done:
                    continue
                for statement in statements(sql):
                    db.execute(statement)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))

    def migrations(self) -> list[str]:
        with self._read() as db:
            return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY rowid")]

    # runs -----------------------------------------------------------------------------------

    def start_run(self, run_id: str, *, upstream: str) -> None:
        """Record (or re-open) a run, owned by this process."""
        with self._write(synced=False) as db:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET pid = excluded.pid",
                (run_id, time.time(), os.getpid(), upstream),
            )

    # money ----------------------------------------------------------------------------------

    def total_spend(self, *, simulated: bool = False) -> float:
        """Settled spend of all runs in one pool (real by default): what the global cap counts."""
        return self._total("SELECT settled_usd FROM pool_totals WHERE simulated = ?", int(simulated))

    def run_spend(self, run_id: str) -> float:
        """Settled spend of one run (both pools: a run has only one upstream)."""
        return self._total("SELECT settled_usd FROM run_totals WHERE run_id = ?", run_id)

    def reserved(self, *, simulated: bool = False) -> float:
        """Money set aside for calls in flight in one pool."""
        return self._total("SELECT held_usd FROM pool_totals WHERE simulated = ?", int(simulated))

    def _total(self, sql: str, key: int | str) -> float:
        with self._read() as db:
            row = db.execute(sql, (key,)).fetchone()
        return float(row[0]) if row else 0.0

    def try_reserve(
        self,
        *,
        run_id: str,
        amount_usd: float,
        simulated: bool,
        global_cap: float | None,
        run_cap: float | None,
        purpose: str,
        tier: str,
        model: str,
        request_digest: str,
    ) -> Reservation | None:
        """Set aside amount_usd if neither cap would be passed; None (nothing written) if it would (`reserve`)."""
        held = self.reserve(
            run_id=run_id,
            amount_usd=amount_usd,
            simulated=simulated,
            global_cap=global_cap,
            run_cap=run_cap,
            purpose=purpose,
            tier=tier,
            model=model,
            request_digest=request_digest,
        )
        return held if isinstance(held, Reservation) else None

    def reserve(
        self,
        *,
        run_id: str,
        amount_usd: float,
        simulated: bool,
        global_cap: float | None,
        run_cap: float | None,
        purpose: str,
        tier: str,
        model: str,
        request_digest: str,
    ) -> Reservation | Refusal:
        """Set aside amount_usd if neither cap would be passed; else (nothing written) the Refusal, with the
        totals it was decided on, so its message is the run's spend at that moment, not a later read.

        The check and the insert are one IMMEDIATE transaction, so concurrent threads and
        processes cannot both squeeze under the cap.
        """
        with self._write() as db:
            # Three primary-key reads of the running totals: the cost of a reservation does not grow with the ledger.
            row = db.execute("SELECT settled_usd, held_usd FROM run_totals WHERE run_id = ?", (run_id,)).fetchone()
            run_spent, run_held = (float(row[0]), float(row[1])) if row else (0.0, 0.0)
            if global_cap is not None:
                row = db.execute(
                    "SELECT settled_usd + held_usd FROM pool_totals WHERE simulated = ?", (int(simulated),)
                ).fetchone()
                counted = float(row[0]) if row else 0.0
                if counted + amount_usd > global_cap + 1e-12:
                    return Refusal(
                        cap="global",
                        limit_usd=global_cap,
                        counted_usd=counted,
                        run_spent_usd=run_spent,
                        run_held_usd=run_held,
                    )
            if run_cap is not None and run_spent + run_held + amount_usd > run_cap + 1e-12:
                return Refusal(
                    cap="run",
                    limit_usd=run_cap,
                    counted_usd=run_spent + run_held,
                    run_spent_usd=run_spent,
                    run_held_usd=run_held,
                )
            cursor = db.execute(
                "INSERT INTO reservations (run_id, pid, ts, amount_usd, simulated, purpose, tier, model, request_digest,"
                " owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    os.getpid(),
                    time.time(),
                    amount_usd,
                    int(simulated),
                    purpose,
                    tier,
                    model,
                    request_digest,
                    self.owner,
                ),
            )
            assert cursor.lastrowid is not None
            return Reservation(id=cursor.lastrowid, run_id=run_id, amount_usd=amount_usd, simulated=simulated)

    def settle(self, reservation: Reservation | None, entry: LedgerEntry) -> LedgerEntry:
        """Append a ledger row and release its reservation in one durable transaction.

        Synced unless its own reservation covers it: then losing the commit to a power cut
        leaves the reservation, charged at its worst case on the next start, never less.
        """
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        covered = reservation is not None and entry.cost_usd <= reservation.amount_usd + 1e-12
        with self._write(synced=not covered) as db:
            row_id = self._insert_row(db, entry)
            if reservation is not None:
                db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))
        return entry.model_copy(update={"id": row_id})

    def record_hit(self, entry: LedgerEntry, *, ledger_row: bool) -> None:
        """Count a cache hit ($0, no reservation): a ledger row when asked, else one more in the run's
        rollup. Never synced on its own: losing it loses no money, and the next synced commit keeps it."""
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        with self._write(synced=False) as db:
            if ledger_row:
                self._insert_row(db, entry)
            else:
                db.execute(
                    "INSERT INTO call_rollups (run_id, purpose, tier, model, simulated, cache_hit, status, calls,"
                    " tokens_in, tokens_out, tokens_cached, cost_usd, latency_ms) VALUES (?, ?, ?, ?, ?, 1, ?, 1, ?, ?,"
                    " ?, ?, ?)" + _ROLLUP_UPSERT,
                    (
                        entry.run_id,
                        entry.purpose,
                        entry.tier,
                        entry.model,
                        int(entry.simulated),
                        entry.status,
                        entry.tokens_in,
                        entry.tokens_out,
                        entry.tokens_cached,
                        entry.cost_usd,
                        entry.latency_ms,
                    ),
                )

    def _insert_row(self, db: sqlite3.Connection, entry: LedgerEntry) -> int:
        values = entry.model_dump()
        cursor = db.execute(
            f"INSERT INTO model_calls ({', '.join(_LEDGER_COLUMNS)}) VALUES ({', '.join('?' * len(_LEDGER_COLUMNS))})",
            [int(v) if isinstance(v, bool) else v for v in (values[name] for name in _LEDGER_COLUMNS)],
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation without a ledger row (the call never left this process). Not synced: if a
        power cut loses it, the reservation is charged at its worst case, which over-counts, never under."""
        with self._write(synced=False) as db:
            db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))

    def recover_orphans(self) -> int:
        """Turn reservations whose owner is gone into ledger rows charged at their worst case.

        A call in flight when its process died may have been paid for; we cannot know, so
        the reserved worst case is counted as spent. Spend never goes down after a crash.
        The owner is gone when nobody holds its lock file (the kernel drops a dead process's
        flock); rows from before owners were recorded fall back to the process id.
        """
        with self._write() as db:
            rows = db.execute(
                "SELECT id, run_id, pid, amount_usd, simulated, purpose, tier, model, request_digest, owner"
                " FROM reservations"
            ).fetchall()
            owners = self.path.parent / OWNERS_DIR
            dead = [
                row[:9]
                for row in rows
                if (not owner_alive(owners, str(row[9])) if row[9] else not pid_alive(int(row[2])))
            ]
            for rid, run_id, _pid, amount, simulated, purpose, tier, model, digest_ in dead:
                db.execute(
                    "INSERT INTO model_calls (run_id, ts, purpose, tier, model, cost_usd, simulated,"
                    " request_digest, status, attempts, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'orphaned', 0, ?)",
                    (
                        run_id,
                        time.time(),
                        purpose,
                        tier,
                        model,
                        amount,
                        simulated,
                        digest_,
                        "process died with the call in flight; charged at its reserved worst case",
                    ),
                )
                db.execute("DELETE FROM reservations WHERE id = ?", (rid,))
        return len(dead)

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


_MOVE_AWAY = "move it away and Ratchet starts a new ledger (nothing is deleted automatically)"


def _fault_message(exc: sqlite3.Error, busy_timeout_s: float) -> str:
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text or "busy" in text:
        return f"ledger is locked by another process (waited {busy_timeout_s:g} s); retry when it has finished"
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) or "not a database" in text or "malformed" in text:
        return f"not a Ratchet ledger ({text}); {_MOVE_AWAY}"
    return f"ledger failed ({text}); check the disk and the file's permissions, or {_MOVE_AWAY}"


def ensure_work_area(home: Path) -> Path:
    """Create the work area (RATCHET_HOME or --work) if needed; a file in its way is bad input."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in (home, *home.parents) if p.exists() and not p.is_dir()), home)
        raise InputError(
            "this is a file, but Ratchet's work area (RATCHET_HOME or --work) must be a folder; "
            "point it at a folder or move the file away",
            path=blocker,
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot create Ratchet's work area ({exc.strerror}); point RATCHET_HOME or --work at a writable folder",
            path=home,
        ) from None
    return home


def open_store(home: Path) -> Store:
    """The store of a project's work area."""
    return Store(ensure_work_area(home) / STORE_FILE)
