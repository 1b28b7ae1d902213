"""The SQLite store: migrations, durable ledger, reservations, orphan recovery."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.store.db import MIGRATIONS, LedgerEntry, Store, open_store


def entry(run: str = "r", cost: float = 0.5, **kw: object) -> LedgerEntry:
    return LedgerEntry.model_validate(
        {
            "run_id": run,
            "purpose": "replay",
            "tier": "agent",
            "model": "m",
            "request_digest": "d",
            "cost_usd": cost,
            **kw,
        }
    )


def test_creates_dirs_wal_and_migrations(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a" / "b")
    assert store.path == tmp_path / "a" / "b" / "ratchet.sqlite"
    assert store.migrations() == [name for name, _ in MIGRATIONS]
    store.close()
    db = sqlite3.connect(tmp_path / "a" / "b" / "ratchet.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    reopened = open_store(tmp_path / "a" / "b")  # migrations are not re-run
    assert len(reopened.migrations()) == len(MIGRATIONS)
    reopened.close()


def test_ledger_and_spend_survive_reopen(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    store.settle(None, entry("r1", 1.0))
    store.settle(None, entry("r2", 2.0))
    store.settle(None, entry("r2", 4.0, simulated=True))
    store.close()
    store = Store(tmp_path / "s.sqlite")
    assert store.total_spend() == 3.0
    assert store.total_spend(simulated=True) == 4.0
    assert store.run_spend("r2") == 6.0
    assert [e.cost_usd for e in store.ledger("r2")] == [2.0, 4.0]
    assert len(store.ledger()) == 3
    store.close()


def test_reservation_respects_global_and_run_caps(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    args = {"simulated": False, "purpose": "p", "tier": "t", "model": "m", "request_digest": "d"}
    a = store.try_reserve(run_id="r", amount_usd=6.0, global_cap=10.0, run_cap=None, **args)
    assert a is not None
    assert store.try_reserve(run_id="r", amount_usd=5.0, global_cap=10.0, run_cap=None, **args) is None
    assert store.try_reserve(run_id="r", amount_usd=4.0, global_cap=100.0, run_cap=9.0, **args) is None
    store.settle(a, entry("r", 1.0))
    assert store.reserved() == 0.0
    assert store.try_reserve(run_id="r", amount_usd=9.0, global_cap=10.0, run_cap=None, **args) is not None
    store.close()


def test_reservations_of_a_dead_process_are_charged_not_forgotten(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    script = (
        "import os, sys\nfrom pathlib import Path\nfrom ratchet.store.db import Store\n"
        "s = Store(Path(sys.argv[1]))\n"
        "s.try_reserve(run_id='dead', amount_usd=2.5, simulated=False, global_cap=None, run_cap=None,"
        " purpose='replay', tier='agent', model='m', request_digest='abc')\n"
        "os._exit(9)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script, str(path)], check=False)
    assert proc.returncode == 9
    store = Store(path)
    assert store.reserved() == pytest.approx(2.5)
    assert store.recover_orphans() == 1
    assert store.reserved() == 0.0
    assert store.total_spend() == pytest.approx(2.5)
    (row,) = store.ledger("dead")
    assert (row.status, row.request_digest) == ("orphaned", "abc")
    assert store.recover_orphans() == 0
    store.close()
