"""The proxy's three wire APIs on the live path, against a real model server on loopback
(llama.cpp + Gemma 3 270M), each driven by its official client library.

Needs RATCHET_LOCAL_MODEL_URL (scripts/local_model_server.sh --check sets it); skipped otherwise.
A 270M base model proves plumbing (translation, streaming, pricing, ledger, cache, cap), not
judgment: no assertion is about what the model says.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from tests.llm.proxy_rig import TOKEN, Rig, running_proxy

URL = os.environ.get("RATCHET_LOCAL_MODEL_URL")
pytestmark = pytest.mark.skipif(not URL, reason="no local model server (scripts/local_model_server.sh --check)")
MODEL = "openai/gemma-3-270m"
TIMEOUT_S = 600  # timeout_s as docs/local-models.md sets it for a model on a small CPU
CLIENT_TIMEOUT_S = TIMEOUT_S + 60  # the client outwaits the gateway, so a slow answer fails in the gateway
PRICE = Price(input=1e-6, output=2e-6)
"""Not what a local model costs: a price, so every answered call shows a non-zero USD in the ledger."""


def _project(tmp_path: Path) -> Project:
    tier = TierConfig(model=MODEL, api_base=URL, max_tokens=32)
    config = RatchetConfig(upstream="live", tiers={"agent": tier, "nano": tier}, prices={MODEL: PRICE})
    return Project(root=tmp_path, config=config, home=tmp_path / "home")


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with running_proxy(_project(tmp_path), gateway_options={"timeout_s": TIMEOUT_S}) as rig:
        yield rig


def _anthropic(rig: Rig) -> anthropic.Anthropic:
    return rig.keep(anthropic.Anthropic(base_url=rig.root, api_key=TOKEN, max_retries=0, timeout=CLIENT_TIMEOUT_S))  # type: ignore[no-any-return]


def _openai(rig: Rig) -> openai.OpenAI:
    return rig.keep(openai.OpenAI(base_url=rig.v1, api_key=TOKEN, max_retries=0, timeout=CLIENT_TIMEOUT_S))  # type: ignore[no-any-return]


def _assert_priced_then_cached(rig: Rig, purpose: str) -> None:
    first, second = rig.store.ledger()
    assert (first.status, first.model, first.simulated, first.cache_hit, first.purpose) == (
        "ok",
        MODEL,
        False,
        False,
        purpose,
    )
    assert first.tokens_in > 0 and first.cost_usd > 0 and first.api_base == URL
    assert (second.cache_hit, second.cost_usd, second.request_digest) == (True, 0.0, first.request_digest)


def test_messages_streamed_then_repeated_from_the_cache(rig: Rig) -> None:
    body: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 16,
        "system": "Answer in one word.",
        "messages": [{"role": "user", "content": "Name a colour."}],
    }
    with _anthropic(rig).messages.stream(**body, extra_headers={"x-ratchet-purpose": "replay"}) as stream:
        streamed = stream.get_final_message()
    again = _anthropic(rig).messages.create(**body, extra_headers={"x-ratchet-purpose": "replay"})
    assert streamed.stop_reason in ("end_turn", "max_tokens") and streamed.usage.output_tokens > 0
    assert again.id == streamed.id and [b.type for b in again.content] == [b.type for b in streamed.content]
    _assert_priced_then_cached(rig, "replay")


def test_messages_tool_history_reaches_the_real_model(rig: Rig) -> None:
    messages: Any = [
        {"role": "user", "content": "Read the note."},
        # With text beside the tool_use: llama-cpp-python's server refuses an assistant turn whose content is null.
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Reading it."},
                {"type": "tool_use", "id": "toolu_1", "name": "files_read_file", "input": {"path": "note.txt"}},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "hello"}]},
    ]
    tools: Any = [
        {
            "name": "files_read_file",
            "description": "Read a file",
            "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}},
        }
    ]
    reply = _anthropic(rig).messages.create(model="agent", max_tokens=16, messages=messages, tools=tools)
    assert reply.stop_reason in ("end_turn", "max_tokens", "tool_use")
    [row] = rig.store.ledger()
    assert row.status == "ok" and row.cost_usd > 0 and row.tier == "agent"


def test_responses_streamed_then_repeated_from_the_cache(rig: Rig) -> None:
    body: dict[str, Any] = {
        "model": "gpt-5-codex",
        "input": "Name a colour.",
        "instructions": "One word.",
        "max_output_tokens": 16,
        "store": False,
    }
    events = list(_openai(rig).responses.create(**body, stream=True))
    assert events[0].type == "response.created" and events[-1].type in ("response.completed", "response.incomplete")
    again = _openai(rig).responses.create(**body)
    assert again.id == events[-1].response.id  # type: ignore[union-attr]
    _assert_priced_then_cached(rig, "capture")


def test_chat_completions_streamed_then_repeated_from_the_cache(rig: Rig) -> None:
    messages: Any = [{"role": "user", "content": "Name a colour."}]
    chunks = list(_openai(rig).chat.completions.create(model="nano", messages=messages, max_tokens=16, stream=True))
    plain = _openai(rig).chat.completions.create(model="nano", messages=messages, max_tokens=16)
    assert plain.choices[0].message.content == "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    _assert_priced_then_cached(rig, "capture")


def test_unknown_model_refused_and_budget_cap_holds_on_the_live_path(tmp_path: Path) -> None:
    with running_proxy(_project(tmp_path), budget_usd=0.002, gateway_options={"timeout_s": TIMEOUT_S}) as rig:
        with pytest.raises(anthropic.NotFoundError):
            _anthropic(rig).messages.create(
                model="claude-opus-9", max_tokens=8, messages=[{"role": "user", "content": "hi"}]
            )
        assert len(rig.refusals) == 1 and rig.store.ledger() == []
        answered = 0
        with pytest.raises(openai.APIStatusError) as caught:
            for n in range(40):
                _openai(rig).responses.create(model="agent", input=f"Count to {n}.", max_output_tokens=300)
                answered += 1
        assert caught.value.status_code == 402 and answered >= 1
        rows = rig.store.ledger()
        assert len(rows) == answered and sum(r.cost_usd for r in rows) <= 0.002
