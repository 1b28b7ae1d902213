"""The live path through litellm against a real local OpenAI-compatible server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ratchet.config.project import Price
from ratchet.config.retry import RetryPolicy
from ratchet.core.chat import ChatRequest
from ratchet.core.errors import ConfigError, ModelCallError
from ratchet.llm.gateway import Gateway
from ratchet.store.db import Store, open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, MODEL, SENTINEL, live_project

FAST = RetryPolicy(max_attempts=3, base_delay_s=0.001, max_delay_s=0.002)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as s:
        yield s


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)


def req(text: str = "hello", **kw: object) -> ChatRequest:
    return ChatRequest.model_validate({"messages": [{"role": "user", "content": text}], **kw})


def gateway(tmp_path: Path, server: FakeOpenAI, **kw: object) -> tuple[Gateway, Store]:
    project = live_project(tmp_path, server, **{k: v for k, v in kw.items() if k in ("price", "priced", "key_env")})
    store = open_store(project.home)
    opts = {k: v for k, v in kw.items() if k not in ("price", "priced", "key_env")}
    return sim_gateway(project, store, run_id="live", retry=FAST, **opts), store  # type: ignore[arg-type]


def test_live_call_priced_ledgered_then_cached(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server, ledger_hits=True)  # the hit's row is read back below
    model = gw.model("nano", "judge-nano")
    first = model.complete(req(max_tokens=50))
    assert first.message.content == "echo: hello"
    assert server.requests[0]["body"]["max_tokens"] == 50
    tin, tout = server.usage_seen()
    assert (first.usage.tokens_in, first.usage.tokens_out) == (tin, tout)
    assert first.usage.usd == pytest.approx(tin * 1e-6 + tout * 2e-6)
    assert not first.simulated and first.latency_ms > 0
    second = model.complete(req(max_tokens=50))
    assert second.cache_hit and second.usage.usd == 0.0
    assert len(server.requests) == 1
    rows = store.ledger("live")
    assert [(r.cache_hit, r.tokens_in, r.tokens_out, r.simulated) for r in rows] == [
        (False, tin, tout, False),
        (True, tin, tout, False),
    ]
    assert rows[0].cost_usd == pytest.approx(first.usage.usd) and rows[1].cost_usd == 0.0
    assert rows[0].api_base == server.base_url
    assert store.total_spend() == pytest.approx(first.usage.usd)
    gw.close()
    store.close()


def test_tool_calls_are_parsed(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server)
    server.script(("tool", "github_add_label", {"issue": 42, "label": "bug"}))
    tools = [{"name": "github_add_label", "description": "label an issue"}]
    out = gw.model("agent", "replay").complete(req(tools=tools))
    (call,) = out.message.tool_calls
    assert (call.name, call.arguments) == ("github_add_label", {"issue": 42, "label": "bug"})
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "github_add_label"
    gw.close()
    store.close()


def test_unpriced_model_refused_before_any_call(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server, priced=False)
    with pytest.raises(ConfigError, match=f"no price for model '{MODEL}'"):
        gw.model("nano", "judge-nano")
    assert server.requests == []
    gw.close()
    store.close()


def test_zero_price_is_allowed(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server, price=Price(input=0, output=0))
    assert gw.model("nano", "x").complete(req()).usage.usd == 0.0
    assert store.ledger()[0].status == "ok"
    gw.close()
    store.close()


def test_retries_429_and_5xx_then_succeeds(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server)
    server.script(429, 503)
    assert gw.model("nano", "x").complete(req()).message.content == "echo: hello"
    assert len(server.requests) == 3
    assert store.ledger()[0].attempts == 3
    gw.close()
    store.close()


def test_gives_up_after_bounded_retries(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server)
    server.script(500, 502, 503, 504)
    with pytest.raises(ModelCallError, match="gave up after 3 attempts"):
        gw.model("nano", "x").complete(req())
    assert len(server.requests) == 3
    assert store.ledger()[0].status == "error"
    assert store.reserved() == 0.0
    gw.close()
    store.close()


def test_400_is_not_retried(tmp_path: Path, server: FakeOpenAI) -> None:
    gw, store = gateway(tmp_path, server)
    server.script(400)
    with pytest.raises(ModelCallError):
        gw.model("nano", "x").complete(req())
    assert len(server.requests) == 1
    gw.close()
    store.close()
