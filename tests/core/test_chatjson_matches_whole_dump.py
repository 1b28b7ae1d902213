"""ratchet.core.chatjson: the joined per-message texts are the whole dump's text, byte for byte; and the
price bound and the simulator's token counts built on them are the ones the whole dump gives."""

from __future__ import annotations

import enum
from typing import Any

from ratchet.core.chat import ChatRequest, Message, ToolCallRequest, ToolSpec, approx_tokens
from ratchet.core.chatjson import messages_json, tools_json
from ratchet.core.jsonio import canonical_dumps
from ratchet.llm.pricing import _PER_MESSAGE_TOKENS, input_token_bound
from ratchet.sim.agent import SimAgentModel


class _Colour(enum.Enum):
    RED = "red"


class _Noted(Message):
    note: str = "extra"


class _Framed(ChatRequest):
    frame: str = "x"


def _messages() -> list[Message]:
    return [
        Message(role="system", content='You follow skills. é ✓ \u2028 "quoted" \\ back'),
        Message(role="user", content="Triage issue #12 in acme/widgets"),
        Message(
            role="assistant",
            tool_calls=[ToolCallRequest(id="call_0_0", name="github_get_issue", arguments={"n": 12, "x": [1.5, None]})],
        ),
        Message(role="tool", content='{"title": "crash", "b": 1, "a": 2}', tool_call_id="call_0_0", name="gh"),
        Message(role="assistant", tool_calls=[ToolCallRequest(id="c", name="t", arguments={"c": _Colour.RED})]),
        Message(role="assistant", content=None),
        _Noted(role="user", content="a subclass"),
        Message(role="user", content="Triage issue #12 in acme/widgets"),  # equal content, a kept text
    ]


def _tools() -> list[ToolSpec]:
    return [
        ToolSpec(
            name="github_get_issue", description="Read an issue ✓", parameters={"type": "object", "z": 1, "a": {}}
        ),
        ToolSpec(name="noop", description=""),
    ]


def _whole(items: list[Any]) -> str:
    return canonical_dumps([item.model_dump(mode="json") for item in items], indent=None)


def test_messages_and_tools_are_the_whole_dump_text() -> None:
    messages, tools = _messages(), _tools()
    for _ in range(2):  # the second time from the kept texts
        assert messages_json(messages) == _whole(messages)
        assert tools_json(tools) == _whole(tools)
    assert messages_json([]) == "[]" and tools_json([]) == "[]"


def _old_bound(request: ChatRequest) -> int:
    payload = request.model_dump(mode="json", include={"messages", "tools", "response_format"})
    return len(canonical_dumps(payload, indent=None).encode()) + _PER_MESSAGE_TOKENS * (len(request.messages) + 1)


def test_input_token_bound_is_the_whole_dump_bound() -> None:
    formats: list[dict[str, Any] | None] = [None, {"type": "json_schema", "schema": {"b": 1, "a": "é"}}]
    for response_format in formats:
        for request in (
            ChatRequest(messages=_messages(), tools=_tools(), response_format=response_format),
            ChatRequest(messages=_messages()[:2], response_format=response_format),
            _Framed(messages=_messages(), tools=_tools(), response_format=response_format),
        ):
            assert input_token_bound(request) == _old_bound(request)


def test_the_simulators_token_counts_are_the_whole_dump_counts() -> None:
    request = ChatRequest(messages=_messages()[:4], tools=_tools())
    answer = SimAgentModel()._respond(request, Message(role="assistant", content="done"), "stop")
    prompt = canonical_dumps(
        {
            "messages": [m.model_dump(mode="json") for m in request.messages],
            "tools": [t.model_dump(mode="json") for t in request.tools],
        },
        indent=None,
    )
    assert answer.usage.tokens_in == approx_tokens(prompt)
