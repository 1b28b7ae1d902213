"""The SQLite store: runs, the model-call ledger and budget reservations.

WAL with synchronous=FULL so a ledger row that was committed survives kill -9 and power loss.
The schema grows only by appending named migrations to MIGRATIONS; a migration that has
run is never edited (later ones add verdicts and review decisions).

Money has two pools: real spend (live upstream) and simulated spend (the simulator priced
at catalog prices). The global cap only ever counts real spend, so offline smoke runs can
never eat into the money a live run may spend.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel, Field

STORE_FILE = "ratchet.sqlite"

MIGRATIONS: list[tuple[str, str]] = [
    (
        "0001_runs_ledger_reservations",
        """
        CREATE TABLE runs (
            run_id      TEXT PRIMARY KEY,
            started_at  REAL NOT NULL,
            pid         INTEGER NOT NULL,
            upstream    TEXT NOT NULL
        );
        CREATE TABLE model_calls (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id          TEXT NOT NULL,
            ts              REAL NOT NULL,
            purpose         TEXT NOT NULL,
            tier            TEXT NOT NULL,
            model           TEXT NOT NULL,
            api_base        TEXT,
            tokens_in       INTEGER NOT NULL DEFAULT 0,
            tokens_out      INTEGER NOT NULL DEFAULT 0,
            tokens_cached   INTEGER NOT NULL DEFAULT 0,
            cost_usd        REAL NOT NULL DEFAULT 0,
            latency_ms      REAL NOT NULL DEFAULT 0,
            cache_hit       INTEGER NOT NULL DEFAULT 0,
            simulated       INTEGER NOT NULL DEFAULT 0,
            request_digest  TEXT NOT NULL,
            status          TEXT NOT NULL,
            attempts        INTEGER NOT NULL DEFAULT 1,
            error           TEXT
        );
        CREATE INDEX model_calls_run ON model_calls(run_id);
        CREATE TABLE reservations (
            id              INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id          TEXT NOT NULL,
            pid             INTEGER NOT NULL,
            ts              REAL NOT NULL,
            amount_usd      REAL NOT NULL,
            simulated       INTEGER NOT NULL,
            purpose         TEXT NOT NULL,
            tier            TEXT NOT NULL,
            model           TEXT NOT NULL,
            request_digest  TEXT NOT NULL
        );
        """,
    ),
]


class LedgerEntry(BaseModel):
    """One row of the model-call ledger. Never holds a key, a prompt or a response."""

    id: int = 0
    run_id: str
    ts: float = 0.0
    purpose: str = Field(description="replay, judge-nano, judge-super, judge-ultra, inject, bless ...")
    tier: str
    model: str
    api_base: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = 0
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    cache_hit: bool = False
    simulated: bool = False
    request_digest: str
    status: str = Field(default="ok", description="ok | error | orphaned (a reservation of a dead process)")
    attempts: int = 1
    error: str | None = None


class Reservation(BaseModel):
    """Worst-case money set aside for one call in flight."""

    id: int
    run_id: str
    amount_usd: float
    simulated: bool


_LEDGER_COLUMNS = [name for name in LedgerEntry.model_fields if name != "id"]


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Store:
    """One SQLite file. Thread-safe: one connection behind a lock; cross-process safe via
    BEGIN IMMEDIATE (the reservation check and insert are one write transaction)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(path, timeout=60.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA busy_timeout=60000")
        self._migrate()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _migrate(self) -> None:
        with self._write() as db:
            db.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at REAL NOT NULL)")
            done = {row[0] for row in db.execute("SELECT name FROM migrations")}
            for name, sql in MIGRATIONS:
                if name in done:
                    continue
                for statement in sql.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))

    def migrations(self) -> list[str]:
        with self._lock:
            return [row[0] for row in self._db.execute("SELECT name FROM migrations ORDER BY rowid")]

    # runs -----------------------------------------------------------------------------------

    def start_run(self, run_id: str, *, upstream: str) -> None:
        """Record (or re-open) a run, owned by this process."""
        with self._write() as db:
            db.execute(
                "INSERT INTO runs VALUES (?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET pid = excluded.pid",
                (run_id, time.time(), os.getpid(), upstream),
            )

    # money ----------------------------------------------------------------------------------

    def total_spend(self, *, simulated: bool = False) -> float:
        """Settled spend of all runs in one pool (real by default): what the global cap counts."""
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE simulated = ?", (int(simulated),)
            ).fetchone()
        return float(row[0])

    def run_spend(self, run_id: str) -> float:
        """Settled spend of one run (both pools: a run has only one upstream)."""
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE run_id = ?", (run_id,)
            ).fetchone()
        return float(row[0])

    def reserved(self, *, simulated: bool = False) -> float:
        with self._lock:
            row = self._db.execute(
                "SELECT COALESCE(SUM(amount_usd), 0) FROM reservations WHERE simulated = ?", (int(simulated),)
            ).fetchone()
        return float(row[0])

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
        """Set aside amount_usd if neither cap would be passed; None (nothing written) if it would.

        The check and the insert are one IMMEDIATE transaction, so concurrent threads and
        processes cannot both squeeze under the cap.
        """
        with self._write() as db:
            if global_cap is not None:
                settled = db.execute(
                    "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE simulated = ?", (int(simulated),)
                ).fetchone()[0]
                held = db.execute(
                    "SELECT COALESCE(SUM(amount_usd), 0) FROM reservations WHERE simulated = ?", (int(simulated),)
                ).fetchone()[0]
                if settled + held + amount_usd > global_cap + 1e-12:
                    return None
            if run_cap is not None:
                settled = db.execute(
                    "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE run_id = ?", (run_id,)
                ).fetchone()[0]
                held = db.execute(
                    "SELECT COALESCE(SUM(amount_usd), 0) FROM reservations WHERE run_id = ?", (run_id,)
                ).fetchone()[0]
                if settled + held + amount_usd > run_cap + 1e-12:
                    return None
            cursor = db.execute(
                "INSERT INTO reservations (run_id, pid, ts, amount_usd, simulated, purpose, tier, model, request_digest)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, os.getpid(), time.time(), amount_usd, int(simulated), purpose, tier, model, request_digest),
            )
            assert cursor.lastrowid is not None
            return Reservation(id=cursor.lastrowid, run_id=run_id, amount_usd=amount_usd, simulated=simulated)

    def settle(self, reservation: Reservation | None, entry: LedgerEntry) -> LedgerEntry:
        """Append a ledger row and release its reservation in one durable transaction."""
        if not entry.ts:
            entry = entry.model_copy(update={"ts": time.time()})
        values = [entry.model_dump()[name] for name in _LEDGER_COLUMNS]
        with self._write() as db:
            cursor = db.execute(
                f"INSERT INTO model_calls ({', '.join(_LEDGER_COLUMNS)}) VALUES ({', '.join('?' * len(values))})",
                [int(v) if isinstance(v, bool) else v for v in values],
            )
            if reservation is not None:
                db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))
        assert cursor.lastrowid is not None
        return entry.model_copy(update={"id": cursor.lastrowid})

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation without a ledger row (the call never left this process)."""
        with self._write() as db:
            db.execute("DELETE FROM reservations WHERE id = ?", (reservation.id,))

    def recover_orphans(self) -> int:
        """Turn reservations of dead processes into ledger rows charged at their worst case.

        A call in flight when its process died may have been paid for; we cannot know, so
        the reserved worst case is counted as spent. Spend never goes down after a crash.
        """
        with self._write() as db:
            rows = db.execute(
                "SELECT id, run_id, pid, amount_usd, simulated, purpose, tier, model, request_digest FROM reservations"
            ).fetchall()
            dead = [row for row in rows if not _pid_alive(int(row[2]))]
            for rid, run_id, _pid, amount, simulated, purpose, tier, model, digest_ in dead:
                db.execute(
                    "INSERT INTO model_calls (run_id, ts, purpose, tier, model, cost_usd, simulated,"
                    " request_digest, status, attempts, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'orphaned', 0, ?)",
                    (run_id, time.time(), purpose, tier, model, amount, simulated, digest_,
                     "process died with the call in flight; charged at its reserved worst case"),
                )
                db.execute("DELETE FROM reservations WHERE id = ?", (rid,))
        return len(dead)

    def ledger(self, run_id: str | None = None) -> list[LedgerEntry]:
        """Ledger rows in order, for one run or all."""
        columns = ["id", *_LEDGER_COLUMNS]
        sql = f"SELECT {', '.join(columns)} FROM model_calls"
        args: tuple[str, ...] = ()
        if run_id is not None:
            sql += " WHERE run_id = ?"
            args = (run_id,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [LedgerEntry.model_validate(dict(zip(columns, row, strict=True))) for row in rows]


def open_store(home: Path) -> Store:
    """The store of a project's work area."""
    return Store(home / STORE_FILE)
