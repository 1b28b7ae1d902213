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
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.errors import InfraError, InputError
from ratchet.locks import take_lock

STORE_FILE = "ratchet.sqlite"
BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another process's transaction before the ledger counts as locked."""

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
    (
        # Who holds a reservation: a token whose lock file its live Store holds (flock), so a process
        # in another PID namespace sharing RATCHET_HOME is never mistaken for a dead one.
        "0002_reservation_owner",
        "ALTER TABLE reservations ADD COLUMN owner TEXT",
    ),
]
OWNERS_DIR = "owners"


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


def _hold_owner_lock(path: Path) -> int | None:
    """Create and hold the owner's lock file for this Store's lifetime; None where locks cannot be had."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return take_lock(path, create=True)
    except OSError:
        return None


def _owner_alive(owners: Path, owner: str) -> bool:
    """Whether a live Store holds owner's lock; a stale lock file found unheld is removed."""
    if not owner.isalnum():
        return False
    path = owners / f"{owner}.lock"
    fd = take_lock(path)
    if fd is None:
        return os.path.lexists(path)  # held by its live owner (any PID namespace), or already gone
    with suppress(OSError):
        path.unlink(missing_ok=True)
    os.close(fd)
    return False


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
    BEGIN IMMEDIATE (the reservation check and insert are one write transaction).

    Every SQLite failure leaves as an InfraError naming the file: a file that is not a Ratchet
    ledger (garbage, another program's database, a newer schema) is refused before anything is
    written to it, and a lock held longer than `busy_timeout_s` is reported, not waited out.
    """

    def __init__(self, path: Path, *, busy_timeout_s: float = BUSY_TIMEOUT_S) -> None:
        ensure_work_area(path.parent)
        self.path = path
        self.busy_timeout_s = busy_timeout_s
        self._lock = threading.RLock()
        token = uuid.uuid4().hex
        self._owner_fd = _hold_owner_lock(path.parent / OWNERS_DIR / f"{token}.lock")
        # Without a held lock file the reservations name no owner and recovery falls back to the pid.
        self.owner: str | None = token if self._owner_fd is not None else None
        with self._faults():
            self._db = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            with self._faults():
                self._db.execute(f"PRAGMA busy_timeout={round(busy_timeout_s * 1000)}")
                self._refuse_foreign()  # before the WAL switch: that rewrites the file's header
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
            self._migrate()
        except BaseException:
            self._db.close()
            self._drop_owner_lock()
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()
            self._drop_owner_lock()

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
        with self._lock, self._faults():
            yield self._db

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._faults():
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
        tables = sorted(row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"))
        if not tables:
            return
        if "migrations" not in tables or [
            row[1] for row in db.execute("PRAGMA table_info(migrations)")
        ] != ["name", "applied_at"]:
            raise InfraError(f"not a Ratchet ledger (it has tables {', '.join(tables[:5])}); {_MOVE_AWAY}",
                             path=self.path)
        applied = [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY rowid")]
        known = [name for name, _ in MIGRATIONS]
        unknown = [name for name in applied if name not in known]
        if not unknown:
            return
        if applied[0] != known[0]:
            raise InfraError(f"not a Ratchet ledger (unknown migrations {', '.join(unknown[:3])}); {_MOVE_AWAY}",
                             path=self.path)
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
                for statement in sql.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("INSERT INTO migrations VALUES (?, ?)", (name, time.time()))

    def migrations(self) -> list[str]:
        with self._read() as db:
            return [row[0] for row in db.execute("SELECT name FROM migrations ORDER BY rowid")]

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
        with self._read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE simulated = ?", (int(simulated),)
            ).fetchone()
        return float(row[0])

    def run_spend(self, run_id: str) -> float:
        """Settled spend of one run (both pools: a run has only one upstream)."""
        with self._read() as db:
            row = db.execute(
                "SELECT COALESCE(SUM(cost_usd), 0) FROM model_calls WHERE run_id = ?", (run_id,)
            ).fetchone()
        return float(row[0])

    def reserved(self, *, simulated: bool = False) -> float:
        with self._read() as db:
            row = db.execute(
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
                "INSERT INTO reservations (run_id, pid, ts, amount_usd, simulated, purpose, tier, model, request_digest,"
                " owner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, os.getpid(), time.time(), amount_usd, int(simulated), purpose, tier, model, request_digest,
                 self.owner),
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
            dead = [row[:9] for row in rows
                    if (not _owner_alive(owners, str(row[9])) if row[9] else not _pid_alive(int(row[2])))]
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
