"""The two wire shapes real harnesses send that plain API clients do not: Claude Code's `role: "system"`
message inside `messages`, and Codex's `type: "namespace"` tools (its MCP tools) with namespaced
function calls. The bodies are trimmed captures of claude 2.1.332 and codex 0.169.0
(tests/data/harness_requests/)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ratchet.core.chat import ChatResponse, Message, ToolCallRequest
from ratchet.llm import anthropic_api, responses_api
from ratchet.llm.body_checks import BadBody
from ratchet.llm.wire import shown_answer

DATA = Path(__file__).parents[1] / "data" / "harness_requests"


def body(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return loaded


def frames(stream: list[str]) -> list[dict[str, Any]]:
    return [json.loads(f.split("data: ", 1)[1]) for f in stream]


def test_claude_code_system_message_stays_at_its_position() -> None:
    request = anthropic_api.parse(body("claude_code_messages.json")).request
    roles = [m.role for m in request.messages]
    assert roles == ["system", "user", "system", "assistant", "tool", "tool", "user"]
    first_system, prompt, environment = request.messages[:3]
    assert first_system.content is not None and first_system.content.startswith("x-anthropic-billing-header")
    assert prompt.content == "triage issue 42"
    assert environment.content is not None
    assert " - Primary working directory: /tmp/rs-7f3a/ws\n" in environment.content
    assert "- triage: Triage a GitHub issue by labelling it." in environment.content
    assert [c.name for c in request.messages[3].tool_calls] == ["Skill", "mcp__ratchet__github_get_issue"]
    assert [(m.tool_call_id, m.content) for m in request.messages[4:6]] == [
        ("toolu_a", "Launching skill: triage"),
        ("toolu_b", 'Error: {"error":"issue #42 not found in acme/widgets"}'),
    ]
    assert request.messages[6].content == (
        "Base directory for this skill: /tmp/rs-7f3a/ws/.claude/skills/triage\n\n# Triage\n1. Read the issue.\n"
    )
    assert [t.name for t in request.tools] == [
        "Skill",
        "mcp__ratchet__github_add_label",
        "mcp__ratchet__github_get_issue",
    ]


def test_a_system_message_of_text_blocks_joins_them() -> None:
    raw = {
        "model": "agent",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "system",
                "content": [
                    {"type": "text", "text": "one"},
                    {"type": "text", "text": "two"},
                    {"type": "image", "source": {}},
                ],
            },
        ],
    }
    assert [(m.role, m.content) for m in anthropic_api.parse(raw).request.messages] == [
        ("user", "hi"),
        ("system", "one\n\ntwo"),
    ]


def test_a_bad_role_is_still_refused_with_its_field() -> None:
    raw = {"model": "agent", "max_tokens": 64, "messages": [{"role": "developer", "content": "x"}]}
    with pytest.raises(BadBody, match=r"messages\[0\]\.role: must be user, assistant or system"):
        anthropic_api.parse(raw)


def test_codex_namespace_tools_are_flattened() -> None:
    asked = responses_api.parse(body("codex_responses.json"))
    assert [t.name for t in asked.request.tools] == [
        "exec_command",
        "view_image",
        "multi_agent_v1__close_agent",
        "mcp__ratchet__github_add_label",
        "mcp__ratchet__github_get_issue",
    ]
    get_issue = asked.request.tools[-1]
    assert get_issue.description.startswith("[read] ")
    assert get_issue.parameters["required"] == ["repo", "number"]
    assert asked.namespaced["mcp__ratchet__github_get_issue"] == ("mcp__ratchet", "github_get_issue")


def test_codex_namespaced_call_and_its_output_read_as_the_flat_tool() -> None:
    messages = responses_api.parse(body("codex_responses.json")).request.messages
    assert [m.role for m in messages] == ["system", "system", "user", "user", "assistant", "tool", "assistant", "tool"]
    skill_read, mcp_call = messages[4].tool_calls[0], messages[6].tool_calls[0]
    assert (skill_read.name, skill_read.arguments) == (
        "exec_command",
        {"cmd": "cat /tmp/rs-7f3a/ws/.agents/skills/triage/SKILL.md"},
    )
    assert messages[5].content is not None and messages[5].content.startswith("Chunk ID: 1b860e\nWall time: ")
    assert (mcp_call.id, mcp_call.name, mcp_call.arguments) == (
        "call_b",
        "mcp__ratchet__github_get_issue",
        {"repo": "acme/widgets", "number": 42},
    )
    # an MCP result comes as content parts; one per line keeps "Output:" apart from the JSON
    assert messages[7].content == (
        'Wall time: 0.0032 seconds\nOutput:\n{"error":"issue #42 not found in acme/widgets"}'
    )


def _answer(*calls: tuple[str, dict[str, Any]]) -> ChatResponse:
    return ChatResponse(
        message=Message(
            role="assistant",
            tool_calls=[
                ToolCallRequest(id=f"up_{i}", name=name, arguments=args) for i, (name, args) in enumerate(calls)
            ],
        ),
        finish_reason="tool_calls",
        request_digest="d" * 64,
    )


def test_a_call_of_a_namespace_tool_goes_back_namespaced() -> None:
    asked = responses_api.parse(body("codex_responses.json"))
    answer = shown_answer(
        _answer(("mcp__ratchet__github_add_label", {"label": "bug"}), ("exec_command", {"cmd": "ls"})),
        asked,
        id_prefix="call_",
    )
    rendered = responses_api.render(answer, asked)["output"]
    assert [(i["type"], i.get("namespace"), i["name"]) for i in rendered] == [
        ("function_call", "mcp__ratchet", "github_add_label"),
        ("function_call", None, "exec_command"),
    ]
    assert "namespace" not in rendered[1]
    events = frames(list(responses_api.stream(answer, asked)))
    items = [e["item"] for e in events if e["type"] in ("response.output_item.added", "response.output_item.done")]
    assert [(i.get("namespace"), i["name"]) for i in items] == [
        ("mcp__ratchet", "github_add_label"),
        ("mcp__ratchet", "github_add_label"),
        (None, "exec_command"),
        (None, "exec_command"),
    ]
    done = [e for e in events if e["type"] == "response.function_call_arguments.done"]
    assert [e["name"] for e in done] == ["github_add_label", "exec_command"]
    completed = events[-1]["response"]["output"]
    assert completed == rendered


def test_a_flat_name_that_is_no_namespace_tool_stays_flat() -> None:
    raw = {
        "model": "agent",
        "input": "hi",
        "tools": [{"type": "function", "name": "mcp__other__x", "parameters": {"type": "object"}}],
    }
    asked = responses_api.parse(raw)
    answer = shown_answer(_answer(("mcp__other__x", {})), asked, id_prefix="call_")
    [item] = responses_api.render(answer, asked)["output"]
    assert item["name"] == "mcp__other__x" and "namespace" not in item


def test_a_malformed_namespace_is_refused_with_its_field() -> None:
    raw = {"model": "agent", "input": "hi", "tools": [{"type": "namespace", "name": "ns", "tools": "x"}]}
    with pytest.raises(BadBody, match=r"tools\[0\]\.tools: must be an array"):
        responses_api.parse(raw)
    raw["tools"] = [{"type": "namespace", "tools": []}]
    with pytest.raises(BadBody, match=r"tools\[0\]\.name: a namespace needs a name"):
        responses_api.parse(raw)
