"""One SQLite ledger file: its connection, the processes' turns at it, its faults and its migrations.

The durability rules (WAL, when a write is synced) are the store's: ratchet/store/db.py says them;
the reads and writes that follow them are ratchet/store/ledger.py and ratchet/store/reservations.py.
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

from ratchet.core.errors import InfraError
from ratchet.core.locks import open_turns, turn
from ratchet.store.owners import hold_owner_lock
from ratchet.store.schema import MIGRATIONS, statements
from ratchet.store.work_area import ensure_work_area

BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another process's transaction before the ledger counts as locked."""

OWNERS_DIR = "owners"
TURNS_SUFFIX = ".turns"
"""<home>/ratchet.sqlite.turns: the file every Store queues on (flock) before it touches the ledger."""


class StoreConnection:
    """One SQLite file. Thread-safe: one connection behind a lock; cross-process safe via
    BEGIN IMMEDIATE (the reservation check and insert are one write transaction).

    Processes take turns at the file through a flock queue (ratchet.core.locks.turn: exclusive to write,
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
        self._before_read()
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
                joined = self._join_spooled(self._db)
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                with suppress(sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise
            self._spooled_joined(joined)

    # The ledger's spool (ratchet.store.ledger, ratchet.store.spool): rows waiting join the next write.

    def _before_read(self) -> None:
        """Called before every read (the ledger folds its waiting rows first, so a read sees them)."""

    def _join_spooled(self, db: sqlite3.Connection) -> int:
        """Called at the start of every write transaction: write what waits to join it; how many rows."""
        return 0

    def _spooled_joined(self, count: int) -> None:
        """Called once that transaction committed: the `count` rows it joined are in the ledger."""

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


_MOVE_AWAY = "move it away and Ratchet starts a new ledger (nothing is deleted automatically)"


def _fault_message(exc: sqlite3.Error, busy_timeout_s: float) -> str:
    code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
    text = str(exc)
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in text or "busy" in text:
        return f"ledger is locked by another process (waited {busy_timeout_s:g} s); retry when it has finished"
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) or "not a database" in text or "malformed" in text:
        return f"not a Ratchet ledger ({text}); {_MOVE_AWAY}"
    return f"ledger failed ({text}); check the disk and the file's permissions, or {_MOVE_AWAY}"
