"""The Anthropic Messages API of the running proxy, driven by the official `anthropic` client, on the simulator."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx
import pytest

from ratchet.goldens.trace import read_trace
from ratchet.llm.capture import trace_from_capture
from tests.llm.proxy_rig import PROBE_SKILL, READ_TOOL_SCHEMA, TOKEN, Rig, rig, sim_rig

__all__ = ["rig"]  # the fixture

HELLO: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 200,
    "messages": [{"role": "user", "content": "hello"}],
}
READ_TOOL = {"name": "files_read_file", "description": "Read a file", "input_schema": READ_TOOL_SCHEMA}


def client(rig: Rig, **options: Any) -> anthropic.Anthropic:
    return rig.sdk(anthropic.Anthropic, rig.root, **options)


def test_non_streaming_message_is_priced_and_ledgered(rig: Rig) -> None:
    message = client(rig).messages.create(
        **HELLO,
        system=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}],
        metadata={"user_id": "u-1"},
        extra_headers={"x-ratchet-purpose": "replay"},
    )
    [row] = rig.store.ledger()
    assert (row.run_id, row.purpose, row.tier, row.simulated, row.cache_hit, row.status) == (
        "h6-run",
        "replay",
        "agent",
        True,
        False,
        "ok",
    )
    assert row.cost_usd > 0 and row.tokens_in > 0 and row.tokens_out > 0
    assert message.id == f"msg_{row.request_digest[:24]}"
    assert (message.model, message.role, message.stop_reason, message.stop_sequence) == (
        "claude-sonnet-4-5",
        "assistant",
        "end_turn",
        None,
    )
    assert [b.type for b in message.content] == ["text"]
    assert message.content[0].text.startswith("No skill applies to this request")  # type: ignore[union-attr]
    assert (message.usage.input_tokens, message.usage.output_tokens) == (row.tokens_in, row.tokens_out)


def test_streaming_then_a_cached_repeat_costs_nothing(rig: Rig) -> None:
    with client(rig).messages.stream(**HELLO) as stream:
        streamed = stream.get_final_message()
    again = client(rig).messages.create(**HELLO)
    assert [b.model_dump(include={"type", "text"}) for b in again.content] == [
        b.model_dump(include={"type", "text"}) for b in streamed.content
    ]
    assert again.id == streamed.id and streamed.stop_reason == again.stop_reason == "end_turn"
    first, second = rig.store.ledger()
    assert (first.cache_hit, second.cache_hit, second.cost_usd) == (False, True, 0.0)
    assert first.cost_usd > 0 and first.request_digest == second.request_digest


def test_stream_events_come_in_the_documented_order(rig: Rig) -> None:
    with httpx.stream(
        "POST",
        f"{rig.v1}/messages?beta=true",
        json={**HELLO, "stream": True},
        timeout=30,
        headers={"x-api-key": TOKEN, "anthropic-version": "2023-06-01", "anthropic-beta": "claude-code-20250219"},
    ) as response:
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
        names = [line.removeprefix("event: ") for line in response.iter_lines() if line.startswith("event: ")]
    assert names == [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_tool_use_round_trip_streamed_and_captured_as_a_trace(rig: Rig) -> None:
    headers = {"x-ratchet-task": "probe-1", "x-ratchet-purpose": "replay"}
    turn: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 500,
        "system": PROBE_SKILL,
        "tools": [READ_TOOL, {"type": "web_search_20250305", "name": "web_search"}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": "read the note"}]}],
    }
    with client(rig).messages.stream(**turn, extra_headers=headers) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    [use] = first.content
    assert use.type == "tool_use" and use.name == "files_read_file" and use.input == {"path": "note.txt"}
    assert use.id.startswith("toolu_")
    turn["messages"] += [
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                *[b.model_dump() for b in first.content],
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": use.id,
                    "content": [{"type": "text", "text": '{"content": "hello"}'}],
                }
            ],
        },
    ]
    final = client(rig).messages.create(**turn, extra_headers=headers)
    assert final.stop_reason == "end_turn"
    assert final.content[0].text.splitlines()[-2:] == ["status: read", "content: hello"]  # type: ignore[union-attr]
    trace = read_trace(rig.proxy.project.pending_dir / "probe-1.json")
    assert (trace.task_id, trace.prompt, trace.simulated) == ("probe-1", "read the note", True)
    assert [(c.purpose, c.tier) for c in trace.model_calls] == [("replay", "agent"), ("replay", "agent")]
    assert [(t.name, t.arguments, t.result, t.effect) for t in trace.tool_calls] == [
        ("files_read_file", {"path": "note.txt"}, '{"content": "hello"}', "write")
    ]
    assert trace.final_output == final.content[0].text  # type: ignore[union-attr]
    capture = rig.proxy.capture_path("h6-run", "probe-1")
    assert [json.loads(line)["api"] for line in capture.read_text().splitlines()] == ["anthropic", "anthropic"]
    assert trace_from_capture(capture, task_id="probe-1", frozen_time=trace.frozen_time) == trace


def test_tool_result_errors_and_unknown_blocks_are_tolerated(rig: Rig) -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "go"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "doc"}},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "x"},
                {"type": "tool_use", "id": "t1", "name": "files_read_file", "input": {"path": "a"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "no such file"},
                {"type": "brand_new_block", "x": 1},
            ],
        },
    ]
    reply = client(rig).messages.create(
        model="claude-sonnet-4-5",
        max_tokens=100,
        messages=messages,  # type: ignore[arg-type]
        tools=[READ_TOOL],
        tool_choice={"type": "auto"},  # type: ignore[list-item]
        extra_body={"temperature": 1.0, "top_k": 5, "top_p": 0.9},
    )
    assert reply.stop_reason == "end_turn"
    capture = rig.proxy.capture_path("h6-run")
    request = json.loads(capture.read_text().splitlines()[0])["request"]
    assert [(m["role"], m["content"]) for m in request["messages"]] == [
        ("user", "go"),
        ("assistant", None),
        ("tool", "Error: no such file"),
    ]
    assert request["tool_choice"] == "auto" and request["temperature"] == 1.0


def test_stop_sequences_cut_the_answer(rig: Rig) -> None:
    message = client(rig).messages.create(**HELLO, stop_sequences=["Request:"])
    assert (message.stop_reason, message.stop_sequence) == ("stop_sequence", "Request:")
    assert "Request:" not in message.content[0].text  # type: ignore[union-attr]
    assert message.content[0].text.startswith("No skill applies")  # type: ignore[union-attr]


def test_count_tokens_calls_no_model(rig: Rig) -> None:
    count = client(rig).messages.count_tokens(
        model="claude-sonnet-4-5", messages=[{"role": "user", "content": "hi"}], system="be brief"
    )
    assert count.input_tokens > 0
    assert rig.store.ledger() == []


def test_a_harness_model_name_maps_to_a_tier_by_alias_or_glob(rig: Rig) -> None:
    client(rig).messages.create(**{**HELLO, "model": "claude-haiku-4-5-20251001"})
    client(rig).messages.create(**{**HELLO, "model": "agent", "max_tokens": 50})
    assert [r.tier for r in rig.store.ledger()] == ["nano", "agent"]


def test_unknown_model_is_refused_logged_and_never_called(rig: Rig) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        client(rig).messages.create(**{**HELLO, "model": "claude-opus-9"})
    body = caught.value.body
    assert isinstance(body, dict) and body["type"] == "error" and body["error"]["type"] == "not_found_error"
    assert "unknown upstream 'claude-opus-9'" in body["error"]["message"]
    assert "--model-alias claude-opus-9=<tier>" in body["error"]["message"]
    assert rig.refusals == [
        "ratchet proxy: refused anthropic request for model 'claude-opus-9' (run h6-run): "
        "not a tier, a tier's model id or a --model-alias"
    ]
    assert rig.store.ledger() == []


def test_wrong_token_gets_anthropics_error_shape_and_bearer_works(rig: Rig) -> None:
    with pytest.raises(anthropic.AuthenticationError) as caught:
        client(rig, api_key="wrong").messages.create(**HELLO)
    assert isinstance(caught.value.body, dict) and caught.value.body["error"]["type"] == "authentication_error"
    bearer = rig.keep(anthropic.Anthropic(base_url=rig.root, api_key=None, auth_token=TOKEN, max_retries=0))
    assert bearer.messages.create(**HELLO).stop_reason == "end_turn"
    foreign = httpx.post(f"{rig.v1}/messages", json=HELLO, headers={"x-api-key": TOKEN, "host": "evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["type"] == "permission_error"
    assert len(rig.store.ledger()) == 1


def test_a_budget_that_runs_out_is_a_billing_error_not_a_crash(tmp_path: Path) -> None:
    with sim_rig(tmp_path, budget_usd=0.0002) as rig:
        answered = 0
        with pytest.raises(anthropic.APIStatusError) as caught:
            for n in range(50):
                client(rig).messages.create(**{**HELLO, "messages": [{"role": "user", "content": f"hello {n}"}]})
                answered += 1
        assert caught.value.status_code == 402 and answered >= 1
        body = caught.value.body
        assert isinstance(body, dict) and body["error"]["type"] == "billing_error"
        assert "run budget" in body["error"]["message"]
        rows = rig.store.ledger()
        assert len(rows) == answered and all(r.status == "ok" and r.cost_usd > 0 for r in rows)
        assert sum(r.cost_usd for r in rows) <= 0.0002


BAD: dict[str, tuple[dict[str, Any], str]] = {
    "no max_tokens": ({"model": "agent", "messages": [{"role": "user", "content": "hi"}]}, "max_tokens"),
    "no messages": ({"model": "agent", "max_tokens": 5}, "messages"),
    "developer role in messages": ({**HELLO, "messages": [{"role": "developer", "content": "x"}]}, "messages[0].role"),
    "a block is a string": ({**HELLO, "messages": [{"role": "user", "content": ["hi"]}]}, "messages[0].content[0]"),
    "tool_result without an id": (
        {**HELLO, "messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]},
        "messages[0].content[0].tool_use_id",
    ),
    "tool_use input is a list": (
        {
            **HELLO,
            "messages": [
                {"role": "user", "content": "a"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": [1]}]},
            ],
        },
        "messages[1].content[0].input",
    ),
    "temperature above 1": ({**HELLO, "temperature": 1.5}, "temperature"),
    "system is a number": ({**HELLO, "system": 5}, "system"),
    "tool without a name": ({**HELLO, "tools": [{"input_schema": {"type": "object"}}]}, "tools[0].name"),
    "tool_choice type": ({**HELLO, "tool_choice": {"type": "sometimes"}}, "tool_choice.type"),
    "stream is a string": ({**HELLO, "stream": "yes"}, "stream"),
    "metadata is a string": ({**HELLO, "metadata": "u"}, "metadata"),
    "model is a number": ({**HELLO, "model": 4}, "model"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_malformed_bodies_are_invalid_request_errors(rig: Rig, name: str) -> None:
    body, where = BAD[name]
    response = httpx.post(f"{rig.v1}/messages", json=body, headers={"x-api-key": TOKEN}, timeout=30)
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    assert where in error["error"]["message"] and "\n" not in error["error"]["message"]
    assert rig.store.ledger() == []


def test_not_json_is_a_400_in_anthropics_shape(rig: Rig) -> None:
    response = httpx.post(
        f"{rig.v1}/messages",
        content=b"{nope",
        timeout=30,
        headers={"x-api-key": TOKEN, "content-type": "application/json"},
    )
    assert response.status_code == 400 and response.json()["error"]["type"] == "invalid_request_error"
