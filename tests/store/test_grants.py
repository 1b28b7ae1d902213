"""Budget grants: one synced commit sets aside the next calls' money, the caps hold exactly, a crash mid-grant
charges what was in flight and gives back the rest (in the same boot) or charges it (after a reboot)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.store import owners
from ratchet.store.db import LedgerEntry, Refusal, Reservation, Store
from ratchet.store.reservations import GRANT_CALLS
from tests.helpers.sqlite_syncs import synced_commits

ARGS = {"purpose": "replay", "tier": "agent", "model": "m", "request_digest": "d"}
BOOT = "boot-a"


@pytest.fixture(autouse=True)
def known_boot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(owners, "boot_id", lambda: BOOT)


def entry(run: str, cost: float) -> LedgerEntry:
    return LedgerEntry.model_validate({"run_id": run, **ARGS, "cost_usd": cost})


def spend_to_the_cap(store: Store, *, global_cap: float | None, run_cap: float | None) -> list[object]:
    """Reserve 1.0 per call, settle each at 0.75 and keep every third in flight, until a refusal."""
    seen: list[object] = []
    for i in range(40):
        held = store.reserve(
            run_id="r", amount_usd=1.0, simulated=False, global_cap=global_cap, run_cap=run_cap, **ARGS
        )
        if isinstance(held, Refusal):
            seen.append(held.model_dump())
            return seen
        seen.append("in flight" if i % 3 == 2 else "settled")
        if i % 3 != 2:
            store.settle(held, entry("r", 0.75))
    return seen


@pytest.mark.parametrize(("global_cap", "run_cap"), [(7.3, None), (None, 7.3), (30.2, 29.6)])
def test_a_cap_reached_mid_grant_admits_and_refuses_exactly_as_one_reservation_per_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, global_cap: float | None, run_cap: float | None
) -> None:
    granted = Store(tmp_path / "granted.sqlite")
    with_grants = spend_to_the_cap(granted, global_cap=global_cap, run_cap=run_cap)
    totals = (granted.total_spend(), granted.reserved(), granted.granted())
    granted.close()
    monkeypatch.setattr(owners, "boot_id", lambda: None)  # no boot id: one synced reservation per call, as before
    per_call = Store(tmp_path / "per-call.sqlite")
    assert spend_to_the_cap(per_call, global_cap=global_cap, run_cap=run_cap) == with_grants
    assert per_call.granted() == 0.0
    assert totals[:2] == (per_call.total_spend(), per_call.reserved())
    per_call.close()
    assert isinstance(with_grants[-1], dict) and with_grants[-1]["run_held_usd"] > 0  # refused with calls in flight
    assert totals[2] == 0.0  # the refusal gave the grant's unused money back


def test_one_synced_commit_reserves_a_grant_of_calls(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    for _ in range(2 * GRANT_CALLS):
        held = store.try_reserve(run_id="r", amount_usd=0.5, simulated=False, global_cap=100.0, run_cap=None, **ARGS)
        assert held is not None
        store.settle(held, entry("r", 0.25))
    store._db.set_trace_callback(None)
    assert synced_commits(seen) == 2
    assert (store.total_spend(), store.reserved()) == (pytest.approx(GRANT_CALLS * 0.5), 0.0)
    assert store.granted() == 0.0  # the second grant is used up to its last call
    store.close()


def test_a_grant_checked_against_other_caps_is_given_back_first(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    assert store.try_reserve(run_id="r", amount_usd=1.0, simulated=False, global_cap=100.0, run_cap=None, **ARGS)
    assert store.granted() == pytest.approx((GRANT_CALLS - 1) * 1.0)
    refused = store.reserve(run_id="r", amount_usd=1.0, simulated=False, global_cap=1.5, run_cap=None, **ARGS)
    assert isinstance(refused, Refusal) and refused.counted_usd == pytest.approx(1.0)
    assert store.granted() == 0.0
    store.close()


_CRASH = """
import os, sys
from pathlib import Path
from ratchet.store import owners
from ratchet.store.db import LedgerEntry, Store
owners.boot_id = lambda: "boot-a"
s = Store(Path(sys.argv[1]))
args = dict(run_id="dead", simulated=False, global_cap=10.0, run_cap=None, purpose="replay", tier="agent", model="m")
first = s.try_reserve(amount_usd=0.5, request_digest="first", **args)
s.settle(first, LedgerEntry(run_id="dead", purpose="replay", tier="agent", model="m", request_digest="first",
         cost_usd=0.125))
s.try_reserve(amount_usd=0.5, request_digest="in-flight", **args)
os._exit(9)
"""


def crashed_mid_grant(path: Path) -> Store:
    """A process that settled one call of its grant and died with a second in flight."""
    proc = subprocess.run([sys.executable, "-c", _CRASH, str(path)], check=False)
    assert proc.returncode == 9
    store = Store(path)
    assert (store.total_spend(), store.reserved()) == (pytest.approx(0.125), pytest.approx(0.5))
    assert store.granted() == pytest.approx((GRANT_CALLS - 2) * 0.5)
    return store


def test_a_crash_mid_grant_charges_the_call_in_flight_and_gives_back_the_rest(tmp_path: Path) -> None:
    store = crashed_mid_grant(tmp_path / "s.sqlite")
    assert store.recover_orphans() == 1
    assert [(row.request_digest, row.status, row.cost_usd) for row in store.ledger("dead")] == [
        ("first", "ok", 0.125),
        ("in-flight", "orphaned", 0.5),
    ]
    assert (store.reserved(), store.granted()) == (0.0, 0.0)
    # The cap counts exactly what was paid or may have been: 0.625 of 10.0.
    admitted = 0
    while isinstance(
        store.reserve(run_id="next", amount_usd=0.5, simulated=False, global_cap=10.0, run_cap=None, **ARGS),
        Reservation,
    ):
        admitted += 1
    assert admitted == int((10.0 - 0.625) / 0.5)
    store.close()


def test_after_a_reboot_a_dead_grant_is_charged_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A power cut may have lost draws whose calls went out: what the grant held last is charged, never less."""
    store = crashed_mid_grant(tmp_path / "s.sqlite")
    monkeypatch.setattr(owners, "boot_id", lambda: "boot-b")
    assert store.recover_orphans() == 2
    rows = [(row.purpose, row.status, row.cost_usd) for row in store.ledger("dead")]
    assert rows == [
        ("replay", "ok", 0.125),
        ("replay", "orphaned", 0.5),
        ("grant", "orphaned", (GRANT_CALLS - 2) * 0.5),
    ]
    assert (store.reserved(), store.granted()) == (0.0, 0.0)
    assert store.total_spend() == pytest.approx(0.125 + 0.5 + (GRANT_CALLS - 2) * 0.5)
    store.close()
