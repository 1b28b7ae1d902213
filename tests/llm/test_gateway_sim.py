"""The gateway on the offline path, with the shipped ScriptedModel as upstream."""

from __future__ import annotations

import pytest

from ratchet.config.project import Project
from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage
from ratchet.core.errors import BudgetError, ConfigError, ModelCallError
from ratchet.llm.cache import cache_key
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.retry import UpstreamError
from ratchet.sim.models import Simulator
from ratchet.store.db import Store
from tests.helpers.gateways import sim_gateway

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.001, max_delay_s=0.002)


def req(text: str = "hello", **kw: object) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}], **kw})


def answer(text: str, tin: int = 100, tout: int = 10) -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text), usage=Usage(tokens_in=tin, tokens_out=tout))


def test_call_is_priced_ledgered_and_cached(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("one", 1000, 100)])
    gw = sim_gateway(sim_project, store, run_id="r1", upstream_models={"nano": fake}, ledger_hits=True)
    model = gw.model("nano", "judge-nano")
    first = model.complete(req())
    # Nano at catalog price: 1000 * 0.04e-6 + 100 * 0.16e-6
    assert first.usage.usd == pytest.approx(1000 * 0.04e-6 + 100 * 0.16e-6)
    assert first.simulated and not first.cache_hit
    assert first.request_digest == cache_key("sim/nano", None, req())
    again = model.complete(req())
    assert again.cache_hit and again.usage.usd == 0.0
    assert again.message.content == "one"
    assert len(fake.requests) == 1
    rows = store.ledger("r1")
    assert [(r.purpose, r.tier, r.cache_hit, r.simulated, r.status) for r in rows] == [
        ("judge-nano", "nano", False, True, "ok"),
        ("judge-nano", "nano", True, True, "ok"),
    ]
    assert rows[1].cost_usd == 0.0
    assert gw.spent() == pytest.approx(first.usage.usd)
    assert store.total_spend() == 0.0  # simulated dollars never count against the real cap
    assert store.total_spend(simulated=True) == pytest.approx(first.usage.usd)


def test_cache_mode_none_never_calls(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano")
    sim_gateway(sim_project, store, run_id="a", upstream_models={"nano": fake}).model("nano", "x").complete(req("seen"))
    gw = sim_gateway(sim_project, store, run_id="b", cache_mode="none", upstream_models={"nano": fake})
    assert gw.model("nano", "x").complete(req("seen")).cache_hit
    with pytest.raises(ModelCallError, match="cache mode 'none'"):
        gw.model("nano", "x").complete(req("unseen"))
    assert len(fake.requests) == 1


class _ChangedSimulator(Simulator):
    """The simulator after a change to its code: another version, so its cached answers are not the old ones."""

    @property
    def version(self) -> str:
        return "a different simulator"


def test_a_changed_simulator_is_not_served_old_answers(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("old simulator"), answer("new simulator")])
    first = (
        sim_gateway(sim_project, store, run_id="a", upstream_models={"nano": fake}).model("nano", "x").complete(req())
    )
    changed = sim_gateway(sim_project, store, run_id="b", upstream_models={"nano": fake}, simulator=_ChangedSimulator())
    second = changed.model("nano", "x").complete(req())
    assert (first.message.content, second.message.content, second.cache_hit) == (
        "old simulator",
        "new simulator",
        False,
    )
    assert first.request_digest == second.request_digest  # the request is the same; only the answerer changed


def test_cache_mode_all_rerecords_and_new_keeps_first(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [answer("first"), answer("second"), answer("third")])
    sim_gateway(sim_project, store, run_id="a", upstream_models={"nano": fake}).model("nano", "x").complete(req())
    new = sim_gateway(sim_project, store, run_id="b", cache_mode="new", upstream_models={"nano": fake})
    assert new.model("nano", "x").complete(req()).message.content == "second"
    once = sim_gateway(sim_project, store, run_id="c", upstream_models={"nano": fake})
    assert once.model("nano", "x").complete(req()).message.content == "first"
    rec = sim_gateway(sim_project, store, run_id="d", cache_mode="all", upstream_models={"nano": fake})
    assert rec.model("nano", "x").complete(req()).message.content == "third"
    assert once.model("nano", "x").complete(req()).message.content == "third"


def test_unknown_cache_mode_and_tier(sim_project: Project, store: Store) -> None:
    with pytest.raises(ConfigError, match="cache mode"):
        sim_gateway(sim_project, store, run_id="a", cache_mode="sometimes")
    gw = sim_gateway(sim_project, store, run_id="a")
    with pytest.raises(ConfigError, match="unknown model tier 'mega'"):
        gw.model("mega", "x")


def test_run_budget_refuses_before_the_call(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/ultra")
    gw = sim_gateway(sim_project, store, run_id="a", budget_usd=0.001, upstream_models={"ultra": fake})
    model = gw.model("ultra", "judge-ultra")
    # worst case of max_tokens=2000 at 1.80e-6 is 0.0036 > 0.001
    with pytest.raises(BudgetError, match="refused"):
        model.complete(req(max_tokens=2000))
    assert fake.requests == []
    assert store.ledger() == []
    model.complete(req(max_tokens=100))
    assert len(fake.requests) == 1


def test_retries_transient_then_fails_closed(sim_project: Project, store: Store) -> None:
    flaky = ScriptedModel("sim/nano", [UpstreamError("503", retryable=True), answer("ok")])
    gw = sim_gateway(sim_project, store, run_id="a", retry=FAST, upstream_models={"nano": flaky})
    assert gw.model("nano", "x").complete(req("a")).message.content == "ok"
    assert store.ledger()[-1].attempts == 2
    down = ScriptedModel("sim/nano", [UpstreamError("503 down", retryable=True)] * 5)
    gw2 = sim_gateway(sim_project, store, run_id="b", retry=FAST, upstream_models={"nano": down})
    with pytest.raises(ModelCallError, match="gave up after 3 attempts"):
        gw2.model("nano", "x").complete(req("b"))
    assert len(down.requests) == 3
    row = store.ledger("b")[-1]
    assert (row.status, row.attempts, row.cost_usd) == ("error", 3, 0.0)
    assert store.reserved(simulated=True) == 0.0
    perm = ScriptedModel("sim/nano", [UpstreamError("401 bad key", retryable=False)])
    gw3 = sim_gateway(sim_project, store, run_id="c", retry=FAST, upstream_models={"nano": perm})
    with pytest.raises(ModelCallError, match="401"):
        gw3.model("nano", "x").complete(req("c"))
    assert len(perm.requests) == 1


def test_failed_call_is_not_cached(sim_project: Project, store: Store) -> None:
    fake = ScriptedModel("sim/nano", [UpstreamError("boom", retryable=False), answer("later")])
    gw = sim_gateway(sim_project, store, run_id="a", retry=FAST, upstream_models={"nano": fake})
    with pytest.raises(ModelCallError):
        gw.model("nano", "x").complete(req())
    assert gw.model("nano", "x").complete(req()).message.content == "later"


def test_sim_path_never_imports_litellm() -> None:
    import subprocess
    import sys

    script = (
        "import sys, tempfile\nfrom pathlib import Path\n"
        "from ratchet.config.project import Project, RatchetConfig\nfrom ratchet.store.db import open_store\n"
        "from ratchet.llm.gateway import Gateway\nfrom ratchet.sim.models import SIMULATOR\n"
        "home = Path(tempfile.mkdtemp())\n"
        "p = Project(root=home, config=RatchetConfig(upstream='sim'), home=home)\n"
        "gw = Gateway(p, open_store(home), run_id='s', simulator=SIMULATOR)\n"
        "assert gw.model('nano', 'judge-nano').model_id\n"
        "assert gw.model('agent', 'replay').model_id\n"
        "print('litellm' in sys.modules, 'openai' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout == "False False\n"


def test_the_gateway_is_handed_the_simulator_and_never_finds_one_itself(sim_project: Project, store: Store) -> None:
    from ratchet.core.errors import ConfigError
    from ratchet.llm.gateway import Gateway

    bare = Gateway(sim_project, store, run_id="bare")
    with pytest.raises(ConfigError, match="upstream is sim, but this run was given no simulator"):
        bare.model("nano", "judge-nano")  # when the model is bound, before any call
    handed = sim_gateway(sim_project, store, run_id="handed")
    assert handed.model("nano", "judge-nano").complete(req()).message.content
