"""The OpenAI Responses and Chat Completions APIs of the running proxy, driven by the official
`openai` client, on the simulator: streaming and not, a tool round trip, caching, the budget."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from ratchet.goldens.trace import read_trace
from tests.llm.proxy_rig import PROBE_SKILL, READ_TOOL_SCHEMA, TOKEN, Rig, rig, sim_rig

__all__ = ["rig"]  # the fixture

READ_TOOL: dict[str, Any] = {
    "type": "function",
    "name": "files_read_file",
    "description": "Read a file",
    "parameters": READ_TOOL_SCHEMA,
    "strict": False,
}


def client(rig: Rig, **options: Any) -> openai.OpenAI:
    return rig.sdk(openai.OpenAI, rig.v1, **options)


def test_responses_non_streaming_is_priced_and_ledgered(rig: Rig) -> None:
    response = client(rig).responses.create(
        model="gpt-5-codex",
        input="hello",
        instructions="Be brief.",
        store=False,
        extra_headers={"x-ratchet-purpose": "replay"},
    )
    [row] = rig.store.ledger()
    assert (row.purpose, row.tier, row.simulated, row.cache_hit) == ("replay", "agent", True, False)
    assert row.cost_usd > 0
    assert response.id == f"resp_{row.request_digest[:24]}" and response.status == "completed"
    assert response.output_text.startswith("No skill applies to this request")
    assert response.usage is not None and (response.usage.input_tokens, response.usage.output_tokens) == (
        row.tokens_in,
        row.tokens_out,
    )


def test_responses_streaming_then_a_cached_repeat_costs_nothing(rig: Rig) -> None:
    events = list(client(rig).responses.create(model="gpt-5-codex", input="hello", stream=True))
    assert [e.type for e in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    with client(rig).responses.stream(model="gpt-5-codex", input="hello") as stream:
        final = stream.get_final_response()
    assert final.output_text == events[-1].response.output_text  # type: ignore[union-attr]
    first, second = rig.store.ledger()
    assert (first.cache_hit, second.cache_hit, second.cost_usd) == (False, True, 0.0)


def test_responses_tool_round_trip_streamed_and_captured(rig: Rig) -> None:
    headers = {"x-ratchet-task": "probe-r", "x-ratchet-purpose": "replay"}
    tools = [READ_TOOL, {"type": "local_shell"}, {"type": "custom", "name": "apply_patch"}]
    history: list[Any] = [
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": PROBE_SKILL}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "read the note"}]},
    ]
    with client(rig).responses.stream(model="gpt-5-codex", input=history, tools=tools, extra_headers=headers) as stream:
        deltas = [e.delta for e in stream if e.type == "response.function_call_arguments.delta"]
        first = stream.get_final_response()
    [call] = first.output
    assert call.type == "function_call" and call.name == "files_read_file"
    assert json.loads(call.arguments) == {"path": "note.txt"} and deltas == [call.arguments]
    assert call.call_id.startswith("call_")
    history += [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments},
        {"type": "function_call_output", "call_id": call.call_id, "output": '{"content": "hello"}'},
    ]
    final = client(rig).responses.create(model="gpt-5-codex", input=history, tools=tools, extra_headers=headers)
    assert final.output_text.splitlines()[-2:] == ["status: read", "content: hello"]
    trace = read_trace(rig.proxy.project.pending_dir / "probe-r.json")
    assert [(t.name, t.arguments, t.result) for t in trace.tool_calls] == [
        ("files_read_file", {"path": "note.txt"}, '{"content": "hello"}')
    ]
    assert trace.prompt == "read the note" and trace.final_output == final.output_text
    lines = rig.proxy.capture_path("h6-run", "probe-r").read_text().splitlines()
    assert [json.loads(line)["api"] for line in lines] == ["responses", "responses"]
    assert [t["name"] for t in json.loads(lines[0])["request"]["tools"]] == ["files_read_file"]


def test_previous_response_id_is_refused_with_a_reason(rig: Rig) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        client(rig).responses.create(model="gpt-5-codex", input="hi", previous_response_id="resp_1")
    assert "previous_response_id: not supported, the capture proxy is stateless" in str(caught.value)
    assert rig.store.ledger() == []


def test_responses_unknown_model_refused_and_logged(rig: Rig) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client(rig).responses.create(model="o9-pro", input="hi")
    assert "unknown upstream 'o9-pro'" in str(caught.value)
    assert rig.refusals == [
        "ratchet proxy: refused responses request for model 'o9-pro' (run h6-run): "
        "not a tier, a tier's model id or a --model-alias"
    ]
    assert rig.store.ledger() == []


def test_responses_budget_that_runs_out_is_a_402(tmp_path: Path) -> None:
    with sim_rig(tmp_path, budget_usd=0.002) as rig:
        answered = 0
        with pytest.raises(openai.APIStatusError) as caught:
            for n in range(50):
                client(rig).responses.create(model="gpt-5-codex", input=f"hello {n}", stream=True).close()
                answered += 1
        assert caught.value.status_code == 402 and answered >= 1 and "run budget" in str(caught.value)
        assert len(rig.store.ledger()) == answered


@pytest.mark.parametrize(
    "body, where",
    [
        ({"model": "agent"}, "input"),
        ({"model": "agent", "input": [{"type": "message", "role": "wizard", "content": "x"}]}, "input[0].role"),
        ({"model": "agent", "input": [{"type": "function_call", "call_id": "c", "arguments": "{}"}]}, "input[0].name"),
        ({"model": "agent", "input": [{"type": "function_call_output", "output": "x"}]}, "input[0].call_id"),
        ({"model": "agent", "input": "hi", "max_output_tokens": 0}, "max_output_tokens"),
        ({"model": "agent", "input": "hi", "temperature": 3}, "temperature"),
        ({"model": "agent", "input": "hi", "tool_choice": "sometimes"}, "tool_choice"),
        ({"model": "agent", "input": "hi", "store": "no"}, "store"),
        ({"model": "agent", "input": "hi", "tools": [{"type": "function"}]}, "tools[0].name"),
    ],
)
def test_malformed_responses_bodies_are_400(rig: Rig, body: dict[str, Any], where: str) -> None:
    response = httpx.post(f"{rig.v1}/responses", json=body, headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
    assert response.status_code == 400, response.text
    assert where in response.json()["error"]["message"]


def test_text_format_becomes_the_response_format(rig: Rig) -> None:
    schema = {"type": "object", "properties": {"v": {"type": "string"}}}
    client(rig).responses.create(
        model="nano",
        input="judge",
        max_output_tokens=50,
        text={"format": {"type": "json_schema", "name": "v", "schema": schema}},
    )
    request = json.loads(rig.proxy.capture_path("h6-run").read_text().splitlines()[0])["request"]
    assert request["response_format"] == {"type": "json_schema", "json_schema": {"name": "v", "schema": schema}}
    assert request["max_tokens"] == 50


def test_chat_completions_streaming_with_usage_and_a_cached_repeat(rig: Rig) -> None:
    messages: Any = [{"role": "user", "content": "hello"}]
    chunks = list(
        client(rig).chat.completions.create(
            model="agent", messages=messages, stream=True, stream_options={"include_usage": True}
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.startswith("No skill applies") and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    plain = client(rig).chat.completions.create(model="agent", messages=messages)
    assert plain.choices[0].message.content == text and plain.id == chunks[0].id
    first, second = rig.store.ledger()
    assert (first.cache_hit, second.cache_hit, second.cost_usd) == (False, True, 0.0) and first.cost_usd > 0


def test_chat_completions_streams_a_tool_call(rig: Rig) -> None:
    tools: Any = [
        {
            "type": "function",
            "function": {"name": "files_read_file", "description": "Read a file", "parameters": READ_TOOL_SCHEMA},
        }
    ]
    messages: Any = [{"role": "system", "content": PROBE_SKILL}, {"role": "user", "content": "read the note"}]
    chunks = list(client(rig).chat.completions.create(model="agent", messages=messages, tools=tools, stream=True))
    calls = [t for c in chunks for t in (c.choices[0].delta.tool_calls or [])]
    assert [(t.function.name, t.function.arguments) for t in calls if t.function] == [
        ("files_read_file", '{"path": "note.txt"}')
    ]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


@pytest.mark.parametrize(
    "path, body",
    [
        (
            "messages",
            {
                "model": "claude-sonnet-4-5",
                "max_tokens": 50,
                "stream": True,
                "messages": [{"role": "user", "content": "hello"}],
            },
        ),
        ("responses", {"model": "gpt-5-codex", "input": "hello", "stream": True}),
        ("chat/completions", {"model": "agent", "stream": True, "messages": [{"role": "user", "content": "hello"}]}),
    ],
)
def test_two_proxies_stream_byte_identical_answers(tmp_path: Path, path: str, body: dict[str, Any]) -> None:
    streams = []
    for home in ("a", "b"):
        with sim_rig(tmp_path / home) as rig:
            response = httpx.post(f"{rig.v1}/{path}", json=body, headers={"x-api-key": TOKEN}, timeout=30)
            assert response.status_code == 200 and response.headers["x-ratchet-cache-hit"] == "false"
            streams.append(response.content)
    assert streams[0] == streams[1] and streams[0].count(b"\n\n") >= 4


def test_chat_stop_sequences_cut_the_answer_without_changing_the_cache_key(rig: Rig) -> None:
    messages: Any = [{"role": "user", "content": "hello"}]
    cut = client(rig).chat.completions.create(model="agent", messages=messages, stop=["Request:"])
    whole = client(rig).chat.completions.create(model="agent", messages=messages)
    assert cut.choices[0].finish_reason == "stop" and cut.choices[0].message.content is not None
    assert whole.choices[0].message.content == cut.choices[0].message.content + "Request: hello"
    assert [r.cache_hit for r in rig.store.ledger()] == [False, True]
