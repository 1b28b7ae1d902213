"""`ratchet store compact`: old ledger detail folded into per-run rollups, every total kept."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.store.db import STORE_FILE, LedgerEntry, Store, open_store

runner = CliRunner()
OLD_STORE = Path(__file__).parents[1] / "data" / "ledger" / "store_0002.sqlite"
DAY = 86_400.0


def entry(run: str, cost: float, ts: float, **kw: object) -> LedgerEntry:
    return LedgerEntry.model_validate(
        {
            "run_id": run,
            "purpose": "replay",
            "tier": "agent",
            "model": "m",
            "request_digest": "d",
            "cost_usd": cost,
            "ts": ts,
            "tokens_in": 100,
            "tokens_out": 10,
            **kw,
        }
    )


def filled(path: Path, now: float) -> Store:
    store = Store(path)
    store.settle(None, entry("old", 1.0, now - 40 * DAY))
    store.settle(None, entry("old", 2.0, now - 40 * DAY, purpose="judge-nano", tier="nano", tokens_in=300))
    store.settle(None, entry("old", 0.5, now - 35 * DAY, status="error", error="boom"))
    store.settle(None, entry("new", 4.0, now - 1 * DAY))
    store.record_hit(entry("new", 0.0, now, cache_hit=True), ledger_row=False)
    return store


def test_compact_drops_old_rows_and_keeps_every_total(tmp_path: Path) -> None:
    now = 1_800_000_000.0
    store = filled(tmp_path / "s.sqlite", now)
    held = store.try_reserve(
        run_id="old",
        amount_usd=0.25,
        simulated=False,
        global_cap=None,
        run_cap=None,
        purpose="replay",
        tier="agent",
        model="m",
        request_digest="x",
    )
    before = (
        store.total_spend(),
        store.run_spend("old"),
        store.run_spend("new"),
        store.reserved(),
        store.calls("old"),
        store.calls("old", purpose="replay"),
        store.calls("new"),
        store.observed_tokens("agent"),
        store.observed_tokens("nano"),
    )
    result = store.compact(before_ts=now - 30 * DAY)
    assert (result.rows_dropped, result.rows_kept) == (3, 1)
    assert [row.run_id for row in store.ledger()] == ["new"]
    after = (
        store.total_spend(),
        store.run_spend("old"),
        store.run_spend("new"),
        store.reserved(),
        store.calls("old"),
        store.calls("old", purpose="replay"),
        store.calls("new"),
        store.observed_tokens("agent"),
        store.observed_tokens("nano"),
    )
    assert after == before
    assert before[4:7] == (3, 2, 2)  # the error counts as a call; the new run's cache hit too
    assert before[7] == (100, 10) and before[8] == (300, 10)
    assert store.compact(before_ts=now - 30 * DAY).rows_dropped == 0  # nothing older is left
    assert held is not None
    store.settle(held, entry("old", 0.2, now))  # a reservation held across compaction still settles
    assert store.run_spend("old") == pytest.approx(3.7)
    store.close()
    reopened = Store(tmp_path / "s.sqlite")
    assert reopened.total_spend() == pytest.approx(7.7) and reopened.calls("old") == 4
    reopened.close()


def test_compacting_a_migrated_old_store_keeps_its_totals(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    shutil.copy(OLD_STORE, path)
    store = Store(path)
    result = store.compact(before_ts=2_000.0)  # every old row was written at ts 1000
    assert (result.rows_dropped, result.rows_kept) == (7, 0)
    assert store.ledger() == []
    assert (store.total_spend(), store.total_spend(simulated=True)) == (pytest.approx(0.875), pytest.approx(3.0))
    assert (store.calls("live-a"), store.calls("sim-b", purpose="judge-super")) == (4, 1)
    assert store.reserved() == pytest.approx(0.75)  # reservations are never compacted
    store.close()


def test_store_compact_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "work"
    store = open_store(home)
    store.settle(None, entry("old", 1.5, 1_000.0))
    store.settle(None, entry("old", 0.5, 1_000.0, simulated=True))
    store.close()
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["store", "compact", "--work", str(home), "--older-than", "30"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        f"compacted {home / STORE_FILE}: 2 ledger row(s) older than 30 day(s) folded into run totals, 0 kept; "
        "spend unchanged (real $1.5000, simulated $0.5000)\n"
    )
    again = runner.invoke(app, ["store", "compact", "--work", str(home), "--older-than", "-1"])
    assert again.exit_code == 2
    assert again.stderr == "error: --older-than must be 0 or more days, not -1\n"


def test_store_compact_cli_refuses_a_missing_ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "empty"
    result = runner.invoke(app, ["store", "compact", "--work", str(home)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {home / STORE_FILE}: no ledger here; nothing to compact (check --work)\n"
    assert not home.exists()
