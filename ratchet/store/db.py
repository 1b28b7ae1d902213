"""The SQLite store: runs, the model-call ledger and budget reservations.

WAL, so a committed transaction survives kill -9. Power loss is covered by when we sync: a
call's money is synced (synchronous=FULL) before its call goes out, in the grant its reservation is
drawn from (docs/adr/0027-durability-per-call.md), and so is any row that no reservation covers; the settle that replaces a reservation is not, and rides the next sync (a
group commit). WAL is replayed as a prefix, so a settle lost to a power cut leaves its
reservation standing, and that is charged at its worst case on the next start: spend can go up
after a crash, never down. A row no money is held for (a simulated call of a run without a budget) is
first a line in the Store's spool file and joins the next write (ratchet/store/spool.py); a Store that
opens the ledger folds a dead one's spool, so a kill -9 loses no row. The schema grows only by appending
named migrations (ratchet/store/schema.py); running totals kept by triggers make a reservation O(1).

Money has two pools: real spend (live upstream) and simulated spend (the simulator priced
at catalog prices). The global cap only ever counts real spend, so offline smoke runs can
never eat into the money a live run may spend.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.store.models import CompactResult, LedgerEntry, Refusal, Reservation
from ratchet.store.reservations import Reservations
from ratchet.store.schema import MIGRATIONS
from ratchet.store.work_area import ensure_work_area

__all__ = [
    "MIGRATIONS",
    "STORE_FILE",
    "CompactResult",
    "LedgerEntry",
    "Refusal",
    "Reservation",
    "Store",
    "open_store",
]

STORE_FILE = "ratchet.sqlite"


class Store(Reservations):
    """One SQLite file: runs and model-call rows (ratchet/store/ledger.py), budget reservations
    (ratchet/store/reservations.py), over one connection shared by threads and processes
    (ratchet/store/connection.py: every SQLite failure an InfraError naming the file)."""


def open_store(home: Path) -> Store:
    """The store of a project's work area."""
    return Store(ensure_work_area(home) / STORE_FILE)
