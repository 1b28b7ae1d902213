"""A simulated call of a run without a budget reserves nothing and syncs nothing; a live call always does both.

No cap counts simulated money unless the run has a budget, so the simulator's calls skip the reservation
and the fsyncs (docs/adr/0027-durability-per-call.md, "Simulated calls"); these tests pin that a live
upstream, or a run budget, keeps every call on the reserved and synced path.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ratchet.config.project import Project, RatchetConfig
from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.gateway import Gateway
from ratchet.store import owners
from ratchet.store.db import Store, open_store
from ratchet.store.models import LedgerEntry
from tests.helpers.gateways import sim_gateway
from tests.helpers.sqlite_syncs import synced_commits
from tests.llm.live_fixtures import MODEL, injected_live_project


@pytest.fixture(autouse=True)
def known_boot(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(owners, "boot_id", lambda: "boot-1")  # grants on, wherever the tests run


def req(text: str) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}]})


def answer(text: str) -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text), usage=Usage(tokens_in=100, tokens_out=10))


def test_a_simulated_call_without_a_budget_reserves_and_syncs_nothing(sim_project: Project, store: Store) -> None:
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": ScriptedModel("sim/nano", [answer("a")])})
    assert not gw.metered
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    out = gw.model("nano", "judge-nano").complete(req("q"))
    store._db.set_trace_callback(None)
    assert out.simulated and out.usage.usd > 0  # priced at the catalog as before
    assert not any("INTO reservations" in sql or "INTO grants" in sql for sql in seen)
    assert synced_commits(seen) == 0
    assert (gw.cache.pending, store.granted(simulated=True), store.reserved(simulated=True)) == (0, 0.0, 0.0)
    [row] = store.ledger("r")  # the row is written at once, as before: only its fsync is gone
    assert (row.simulated, row.cost_usd) == (True, out.usage.usd)
    assert gw.model("nano", "judge-nano").complete(req("q")).cache_hit  # the unsynced entry is served


def test_a_simulated_run_with_a_budget_still_reserves(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("a")])
    gw = sim_gateway(sim_project, store, run_id="r", upstream_models={"nano": fake}, budget_usd=1.0)
    assert gw.metered
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    gw.model("nano", "judge-nano").complete(req("q"))
    store._db.set_trace_callback(None)
    assert any("INTO reservations" in sql for sql in seen) and synced_commits(seen) == 1  # the grant's commit
    assert store.granted(simulated=True) > 0


def test_a_live_call_always_reserves_and_syncs(tmp_path: Path) -> None:
    project = injected_live_project(tmp_path)
    store = open_store(project.home)
    try:
        gw = Gateway(project, store, run_id="r", upstream_models={"nano": ScriptedModel(MODEL, [answer("a")])})
        assert gw.metered
        seen: list[str] = []
        store._db.set_trace_callback(seen.append)
        out = gw.model("nano", "judge-nano").complete(req("q"))
        store._db.set_trace_callback(None)
        assert not out.simulated
        assert any("INTO reservations" in sql for sql in seen) and synced_commits(seen) == 1
        assert store.granted() > 0
        assert gw.cache.pending == 1  # its entry waits for the batch's fsync
        gw.close()
        assert gw.cache.synced == 1
    finally:
        store.close()


def test_a_real_row_no_reservation_covers_is_synced_a_simulated_one_is_not(tmp_path: Path) -> None:
    store = Store(tmp_path / "s.sqlite")
    fields = {"purpose": "p", "tier": "nano", "model": "m", "request_digest": "d", "cost_usd": 0.5}
    seen: list[str] = []
    store._db.set_trace_callback(seen.append)
    store.settle(None, store_entry(simulated=True, **fields))
    simulated = synced_commits(seen)
    seen.clear()
    store.settle(None, store_entry(simulated=False, **fields))
    store._db.set_trace_callback(None)
    store.close()
    assert (simulated, synced_commits(seen)) == (0, 1)


def store_entry(**fields: object) -> LedgerEntry:
    return LedgerEntry.model_validate({"run_id": "r", **fields})


_KILLED = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from ratchet.config.project import Project, RatchetConfig
    from ratchet.core.chat import ChatRequest
    from ratchet.store.db import open_store
    from tests.helpers.gateways import sim_gateway

    home = Path(sys.argv[1])
    project = Project(root=home.parent, config=RatchetConfig(upstream="sim"), home=home)
    gw = sim_gateway(project, open_store(home), run_id="k")
    model = gw.model("nano", "judge-nano")
    for i in range(20):
        model.complete(ChatRequest.model_validate({"messages": [{"role": "user", "content": f"q{i}"}]}))
    print("done", flush=True)
    sys.stdin.read()  # killed here: no flush, no close
    """
)


def test_kill_9_after_unmetered_calls_loses_no_row_and_no_answer(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root}
    child = subprocess.Popen(
        [sys.executable, "-c", _KILLED, str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "done"
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.stdin is not None
    child.stdin.close()
    child.stdout.close()
    project = Project(root=tmp_path, config=RatchetConfig(upstream="sim"), home=home)
    store = open_store(home)
    try:
        assert len(store.ledger("k")) == 20  # every unsynced commit is in the WAL
        gw = sim_gateway(project, store, run_id="again")
        model = gw.model("nano", "judge-nano")
        assert all(model.complete(req(f"q{i}")).cache_hit for i in range(20))  # every entry whole and served
        assert gw.cache.rejected == 0
        gw.close()
    finally:
        store.close()
