"""Running spend totals: O(1) reservations, an old store migrated with its totals, group commits."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ratchet.store.db import MIGRATIONS, LedgerEntry, Store

OLD_STORE = Path(__file__).parents[1] / "data" / "ledger" / "store_0002.sqlite"
"""Written by the store as of migration 0002 (tests/data/ledger/make_store_0002.py.txt), before totals existed:
real rows 0.25 + 0.5 + 0.125 (an error) in run live-a, plus a $0 cache hit; simulated rows 1.0 + 2.0 and a hit
in run sim-b; one reservation of 0.75 held by a process that is gone."""

ARGS = {"purpose": "replay", "tier": "agent", "model": "m", "request_digest": "d"}


def entry(run: str = "r", cost: float = 0.5, **kw: object) -> LedgerEntry:
    return LedgerEntry.model_validate({"run_id": run, **ARGS, "cost_usd": cost, **kw})


@contextmanager
def statements(store: Store) -> Iterator[list[str]]:
    """Every SQL statement the store's connection runs inside the block."""
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    try:
        yield seen
    finally:
        store._db.set_trace_callback(None)


def test_a_store_written_before_totals_opens_with_its_totals(tmp_path: Path) -> None:
    path = tmp_path / "ratchet.sqlite"
    shutil.copy(OLD_STORE, path)
    store = Store(path)
    assert store.migrations() == [name for name, _ in MIGRATIONS]
    assert store.total_spend() == pytest.approx(0.875)
    assert store.total_spend(simulated=True) == pytest.approx(3.0)
    assert store.run_spend("live-a") == pytest.approx(0.875)
    assert store.run_spend("sim-b") == pytest.approx(3.0)
    assert store.reserved() == pytest.approx(0.75)
    assert len(store.ledger()) == 7
    assert store.calls("live-a") == 4 and store.calls("live-a", purpose="replay") == 3
    # The old reservation is still charged at its worst case, and it now counts in the totals.
    assert store.recover_orphans() == 1
    assert (store.total_spend(), store.reserved()) == (pytest.approx(1.625), 0.0)
    assert (
        store.try_reserve(run_id="new", amount_usd=0.5, simulated=False, global_cap=2.0, run_cap=None, **ARGS) is None
    )  # 1.625 settled + 0.5 > 2.0
    store.close()
    reopened = Store(path)  # the migration ran once; reopening keeps the totals
    assert (reopened.total_spend(), reopened.run_spend("live-a")) == (pytest.approx(1.625), pytest.approx(1.625))
    reopened.close()


def test_a_reservation_reads_totals_not_the_ledger(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    for i in range(20):
        store.settle(None, entry(f"r{i % 3}", 0.01))
    with statements(store) as seen:
        held = store.try_reserve(run_id="r1", amount_usd=0.1, simulated=False, global_cap=10.0, run_cap=5.0, **ARGS)
    assert held is not None
    reads = [s for s in seen if s.lstrip().upper().startswith("SELECT")]
    assert reads and not [s for s in seen if "model_calls" in s]
    for sql in reads:  # each read is a primary-key lookup, never a scan
        plan = " ".join(str(row[3]) for row in store._db.execute("EXPLAIN QUERY PLAN " + sql, ("r1",) * sql.count("?")))
        assert "SCAN" not in plan, (sql, plan)
    store.close()


def test_totals_match_the_rows_and_release_to_exactly_zero(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    held = [
        store.try_reserve(
            run_id=f"r{i % 4}", amount_usd=0.1 + i / 997, simulated=bool(i % 2), global_cap=None, run_cap=None, **ARGS
        )
        for i in range(40)
    ]
    for i, reservation in enumerate(held):
        assert reservation is not None
        if i % 3:
            store.settle(reservation, entry(reservation.run_id, 0.07 + i / 1009, simulated=reservation.simulated))
        else:
            store.release(reservation)
    assert (store.reserved(), store.reserved(simulated=True)) == (0.0, 0.0)
    db = sqlite3.connect(store.path)
    for simulated in (0, 1):
        (summed,) = db.execute("SELECT SUM(cost_usd) FROM model_calls WHERE simulated = ?", (simulated,)).fetchone()
        assert store.total_spend(simulated=bool(simulated)) == pytest.approx(summed, rel=1e-12)
    for run in ("r0", "r1", "r2", "r3"):
        (summed,) = db.execute("SELECT SUM(cost_usd) FROM model_calls WHERE run_id = ?", (run,)).fetchone()
        assert store.run_spend(run) == pytest.approx(summed, rel=1e-12)
    db.close()
    store.close()


def test_a_settle_backed_by_its_reservation_rides_the_next_sync(tmp_path: Path) -> None:
    """The reservation is synced before the call goes out; the settle that follows is not: if it is lost
    the reservation survives and is charged at its worst case, never less. A settle no reservation
    covers (or one that costs more than its reservation) is synced itself."""
    store = Store(tmp_path / "s.sqlite")
    with statements(store) as seen:
        held = store.try_reserve(run_id="r", amount_usd=0.5, simulated=False, global_cap=None, run_cap=None, **ARGS)
        store.settle(held, entry("r", 0.25))
        store.settle(None, entry("r", 0.25))
    syncs = [s.split("=")[1] for s in seen if s.startswith("PRAGMA synchronous")]
    begins = [i for i, s in enumerate(seen) if s.startswith("BEGIN")]
    modes = []
    for start in begins:
        before = [s for s in seen[:start] if s.startswith("PRAGMA synchronous")]
        modes.append(before[-1].split("=")[1] if before else "FULL")
    assert modes == ["FULL", "NORMAL", "FULL"], (syncs, seen)
    assert store.total_spend() == pytest.approx(0.5)
    store.close()


def test_a_ledger_row_cannot_be_rewritten(tmp_path: Path) -> None:
    """Totals only grow with inserts; an UPDATE that lowered a cost would silently break them, so it is refused."""
    store = Store(tmp_path / "s.sqlite")
    store.settle(None, entry("r", 1.0))
    store.close()
    db = sqlite3.connect(tmp_path / "s.sqlite")
    with pytest.raises(sqlite3.IntegrityError, match="ledger rows are never changed"):
        db.execute("UPDATE model_calls SET cost_usd = 0")
    db.close()
    reopened = Store(tmp_path / "s.sqlite")
    assert reopened.total_spend() == 1.0
    reopened.close()
