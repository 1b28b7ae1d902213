"""The harness session endpoint over real loopback HTTP: tokens pick sessions, models outside the
spec are refused before any call, rewrites reach the model and restores reach the client, exchanges
are kept in order, failures keep their statuses and a stream is a pure function of the request.
The session's model is the scripted fake (ratchet/llm/fake.py); bodies are trimmed captures of the
real binaries (tests/data/harness_requests/)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest, Usage
from ratchet.core.errors import BudgetError, ModelCallError
from ratchet.llm.fake import ScriptedModel
from ratchet.llm.sessions import Rewrite, SessionEndpoint, SessionSpec

DATA = Path(__file__).parents[1] / "data" / "harness_requests"
SCRATCH = "/tmp/rs-7f3a"
PLACEHOLDER = "/ratchet-scratch"
SPEC = SessionSpec(
    rewrites=[
        Rewrite(pattern=re.escape(SCRATCH), replacement=PLACEHOLDER),
        Rewrite(pattern=r"OS Version: [^\n]*", replacement="OS Version: -"),
        Rewrite(pattern=r"Chunk ID: [0-9a-f]+", replacement="Chunk ID: 0"),
        Rewrite(pattern=r"Wall time: [0-9.]+ seconds", replacement="Wall time: 0 seconds"),
    ],
    restores={PLACEHOLDER: SCRATCH},
)


@pytest.fixture
def endpoint() -> Iterator[tuple[SessionEndpoint, list[str]]]:
    logged: list[str] = []
    with SessionEndpoint(log=logged.append) as running:
        yield running, logged


def fixture_body(name: str, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return {**body, **changes}


def post(base: str, path: str, body: dict[str, Any], token: str | None, **headers: str) -> httpx.Response:
    if token is not None:
        headers.setdefault("x-api-key", token)
    return httpx.post(f"{base}{path}", json=body, headers=headers, timeout=10)


def tool_answer(*calls: tuple[str, dict[str, Any]], text: str | None = None) -> ChatResponse:
    return ChatResponse(
        message=Message(
            role="assistant",
            content=text,
            tool_calls=[ToolCallRequest(id=f"up_{i}", name=n, arguments=a) for i, (n, a) in enumerate(calls)],
        ),
        finish_reason="tool_calls" if calls else "stop",
        usage=Usage(tokens_in=10, tokens_out=3),
        model="fake/m",
    )


SMALL = {"model": "agent", "max_tokens": 64, "messages": [{"role": "user", "content": "hi"}]}


def test_a_session_token_is_served_and_others_are_refused(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    mine, theirs = ScriptedModel(responses=["hello"]), ScriptedModel(responses=["other"])
    session = server.open(SPEC, mine)
    other = server.open(SPEC, theirs)
    ok = post(server.base_url, "/v1/messages", SMALL, session.token)
    assert ok.status_code == 200 and ok.json()["content"] == [{"type": "text", "text": "hello"}]
    assert ok.headers["x-ratchet-tier"] == "agent"
    assert (len(mine.requests), len(theirs.requests)) == (1, 0)
    bearer = httpx.post(
        f"{server.base_url}/v1/messages", json=SMALL, timeout=10, headers={"authorization": f"Bearer {other.token}"}
    )
    assert bearer.json()["content"][0]["text"] == "other"
    for token in (None, "not-a-token"):
        refused = post(server.base_url, "/v1/messages", SMALL, token)
        assert refused.status_code == 401
        assert refused.json()["error"]["type"] == "authentication_error"
        assert refused.json()["error"]["message"].startswith("missing or wrong session token")
    foreign = post(server.base_url, "/v1/messages", SMALL, session.token, host="evil.example")
    assert foreign.status_code == 403 and foreign.json()["error"]["type"] == "permission_error"
    assert (len(mine.requests), len(theirs.requests)) == (1, 1)
    assert [len(session.exchanges), len(other.exchanges)] == [1, 1]


def test_close_ends_a_token_and_keeps_its_exchanges(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    session = server.open(SPEC, ScriptedModel(responses=["one"]))
    assert post(server.base_url, "/v1/messages", SMALL, session.token).status_code == 200
    server.close(session)
    after = post(server.base_url, "/v1/messages", SMALL, session.token)
    assert after.status_code == 401
    assert [e.response.message.content for e in session.exchanges] == ["one"]


def test_a_model_outside_the_spec_is_refused_404_logged_and_never_called(
    endpoint: tuple[SessionEndpoint, list[str]],
) -> None:
    server, logged = endpoint
    model = ScriptedModel()
    session = server.open(SessionSpec(models=["agent", "claude-sonnet-4-5"]), model)
    anth = post(server.base_url, "/v1/messages", {**SMALL, "model": "claude-opus-9"}, session.token)
    assert anth.status_code == 404 and anth.json() == {
        "type": "error",
        "error": {
            "type": "not_found_error",
            "message": "unknown model 'claude-opus-9': this session serves agent, claude-sonnet-4-5",
        },
    }
    resp = post(server.base_url, "/v1/responses", {"model": "gpt-5-codex", "input": "hi"}, session.token)
    assert resp.status_code == 404 and resp.json()["error"]["code"] == 404
    counted = post(server.base_url, "/v1/messages/count_tokens", {**SMALL, "model": "claude-opus-9"}, session.token)
    assert counted.status_code == 404
    assert model.requests == [] and session.exchanges == []
    assert session.refused == ["claude-opus-9", "gpt-5-codex", "claude-opus-9"]
    assert logged[:2] == [
        "ratchet harness session: refused anthropic request for model 'claude-opus-9': "
        "this session serves agent, claude-sonnet-4-5",
        "ratchet harness session: refused responses request for model 'gpt-5-codex': "
        "this session serves agent, claude-sonnet-4-5",
    ]
    listed = httpx.get(f"{server.base_url}/v1/models", headers={"x-api-key": session.token}, timeout=10)
    assert [m["id"] for m in listed.json()["data"]] == ["agent", "claude-sonnet-4-5"]


def test_claude_code_rewrites_reach_the_model_and_restores_reach_the_sdk(
    endpoint: tuple[SessionEndpoint, list[str]],
) -> None:
    server, _ = endpoint
    model = ScriptedModel(
        responses=[
            tool_answer(
                (
                    "mcp__ratchet__files_read_file",
                    {
                        "path": f"{PLACEHOLDER}/ws/note.txt",
                        "also": [f"{PLACEHOLDER}/a", {"deep": f"x {PLACEHOLDER}/b"}, 3],
                    },
                ),
                text=f"Reading {PLACEHOLDER}/ws/note.txt",
            )
        ]
    )
    session = server.open(SPEC, model)
    body = fixture_body("claude_code_messages.json")
    client = anthropic.Anthropic(base_url=server.base_url, api_key=session.token, max_retries=0)
    try:
        with client.messages.stream(
            model=body["model"],
            max_tokens=body["max_tokens"],
            system=body["system"],
            messages=body["messages"],
            tools=body["tools"],
        ) as stream:
            final = stream.get_final_message()
    finally:
        client.close()
    [asked] = model.requests
    seen = asked.model_dump_json()
    assert SCRATCH not in seen and "Linux 6.18" not in seen
    environment = asked.messages[2].content or ""
    assert " - Primary working directory: /ratchet-scratch/ws\n" in environment
    assert " - OS Version: -\n" in environment
    assert asked.messages[-1].content == (
        "Base directory for this skill: /ratchet-scratch/ws/.claude/skills/triage\n\n# Triage\n1. Read the issue.\n"
    )
    text, call = final.content
    assert text.type == "text" and text.text == f"Reading {SCRATCH}/ws/note.txt"
    assert call.type == "tool_use" and call.name == "mcp__ratchet__files_read_file"
    assert call.input == {"path": f"{SCRATCH}/ws/note.txt", "also": [f"{SCRATCH}/a", {"deep": f"x {SCRATCH}/b"}, 3]}
    [exchange] = session.exchanges
    assert exchange.api == "anthropic" and exchange.request == asked
    assert exchange.response.message.tool_calls[0].arguments["path"] == f"{PLACEHOLDER}/ws/note.txt"
    assert call.id == exchange.response.message.tool_calls[0].id and call.id.startswith("toolu_")


def test_codex_rewrites_restores_and_the_namespaced_call(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    model = ScriptedModel(
        responses=[
            tool_answer(("mcp__ratchet__github_add_label", {"repo": "acme/widgets", "note": f"{PLACEHOLDER}/ws/n"}))
        ]
    )
    session = server.open(SPEC, model)
    raw = post(
        server.base_url,
        "/v1/responses",
        fixture_body("codex_responses.json"),
        None,
        authorization=f"Bearer {session.token}",
    )
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("text/event-stream")
    events = [json.loads(line[6:]) for line in raw.text.splitlines() if line.startswith("data: ")]
    done = next(e["item"] for e in events if e["type"] == "response.output_item.done")
    assert (done["namespace"], done["name"]) == ("mcp__ratchet", "github_add_label")
    assert json.loads(done["arguments"]) == {"repo": "acme/widgets", "note": f"{SCRATCH}/ws/n"}
    [asked] = model.requests
    assert SCRATCH not in asked.model_dump_json()
    outputs = [m.content for m in asked.messages if m.role == "tool"]
    assert outputs[0] is not None and outputs[0].startswith("Chunk ID: 0\nWall time: 0 seconds\n")
    assert outputs[1] == 'Wall time: 0 seconds\nOutput:\n{"error":"issue #42 not found in acme/widgets"}'
    assert asked.messages[4].tool_calls[0].arguments == {
        "cmd": "cat /ratchet-scratch/ws/.agents/skills/triage/SKILL.md"
    }
    assert session.exchanges[0].response.message.tool_calls[0].name == "mcp__ratchet__github_add_label"


def test_openai_sdk_non_streaming_and_the_session_seed(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    model = ScriptedModel(responses=[f"see {PLACEHOLDER}/out.txt", "chat"])
    session = server.open(SPEC.model_copy(update={"seed": 41}), model)
    client = openai.OpenAI(base_url=f"{server.base_url}/v1", api_key=session.token, max_retries=0)
    try:
        response = client.responses.create(model="agent", input=f"write {SCRATCH}/out.txt", store=False)
        chat = client.chat.completions.create(model="agent", messages=[{"role": "user", "content": "x"}], seed=7)
    finally:
        client.close()
    assert response.output_text == f"see {SCRATCH}/out.txt"
    assert chat.choices[0].message.content == "chat"
    assert [r.messages[0].content for r in model.requests] == [f"write {PLACEHOLDER}/out.txt", "x"]
    assert [r.seed for r in model.requests] == [41, 7]  # the wire's own seed wins
    assert [e.api for e in session.exchanges] == ["responses", "chat"]


def test_exchanges_are_recorded_in_order(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    session = server.open(SPEC, ScriptedModel(responses=["a", "b", "c"]))
    for word in ("first", "second", "third"):
        body = {**SMALL, "messages": [{"role": "user", "content": word}]}
        assert post(server.base_url, "/v1/messages", body, session.token).status_code == 200
    assert [(e.request.messages[0].content, e.response.message.content) for e in session.exchanges] == [
        ("first", "a"),
        ("second", "b"),
        ("third", "c"),
    ]


@pytest.mark.parametrize(
    ("failure", "status", "kind"),
    [
        (BudgetError("run budget $0.01 would be passed"), 402, "billing_error"),
        (ModelCallError("upstream down after 3 tries"), 502, "api_error"),
    ],
)
def test_model_failures_keep_their_statuses(
    endpoint: tuple[SessionEndpoint, list[str]], failure: Exception, status: int, kind: str
) -> None:
    server, _ = endpoint
    session = server.open(SPEC, ScriptedModel(responses=[failure]))
    refused = post(server.base_url, "/v1/messages", {**SMALL, "stream": True}, session.token)
    assert refused.status_code == status
    assert refused.json()["error"] == {"type": kind, "message": str(failure)}
    assert session.exchanges == []


def test_a_bad_body_is_a_400_naming_the_field(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    model = ScriptedModel()
    session = server.open(SPEC, model)
    bad = post(server.base_url, "/v1/messages", {"model": "agent", "messages": []}, session.token)
    assert bad.status_code == 400 and bad.json()["error"]["message"].startswith("max_tokens: required")
    assert model.requests == []


def _replaying(request: ChatRequest) -> ChatResponse:
    last = request.messages[-1].content or ""
    return tool_answer(("mcp__ratchet__github_get_issue", {"number": len(last)}), text=f"on it: {last}")


@pytest.mark.parametrize("name", ["claude_code_messages.json", "codex_responses.json"])
def test_identical_requests_stream_identical_bytes(endpoint: tuple[SessionEndpoint, list[str]], name: str) -> None:
    server, _ = endpoint
    path = "/v1/messages" if name.startswith("claude") else "/v1/responses"
    streams = []
    for _ in range(2):  # two sessions: different tokens, the same bytes
        session = server.open(SPEC, ScriptedModel(responses=[_replaying, _replaying]))
        streams.append(post(server.base_url, path, fixture_body(name), session.token).content)
        server.close(session)
    assert streams[0] == streams[1]
    assert b"github_get_issue" in streams[0] and b"on it: " in streams[0]


def test_tool_call_ids_differ_between_turns_with_a_raw_model(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    session = server.open(SPEC, ScriptedModel(responses=[_replaying, _replaying]))
    ids = []
    for word in ("one", "two"):
        body = {**SMALL, "messages": [{"role": "user", "content": word}]}
        ids.append(post(server.base_url, "/v1/messages", body, session.token).json()["content"][1]["id"])
    assert ids[0] != ids[1] and all(i.startswith("toolu_") and len(i) > 12 for i in ids)


def test_count_tokens_sees_the_rewritten_body(endpoint: tuple[SessionEndpoint, list[str]]) -> None:
    server, _ = endpoint
    session = server.open(SPEC, ScriptedModel())
    long = {**SMALL, "messages": [{"role": "user", "content": f"{SCRATCH}/{'x' * 40}"}]}
    short = {**SMALL, "messages": [{"role": "user", "content": f"{PLACEHOLDER}/{'x' * 40}"}]}
    counts = [post(server.base_url, "/v1/messages/count_tokens", b, session.token).json() for b in (long, short)]
    assert counts[0] == counts[1] and counts[0]["input_tokens"] > 0
