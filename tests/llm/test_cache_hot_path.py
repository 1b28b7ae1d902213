"""The cache's hot path: chained request keys equal to the whole-request key, checked entries kept in memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest, ToolSpec
from ratchet.core.jsonio import canonical_dumps
from ratchet.llm.cache import ResponseCache, _whole_key, cache_key

TOOLS = [
    ToolSpec(name="fx_rate", description="Rate ünïcode ✓", parameters={"type": "object", "properties": {"a": {}}}),
    ToolSpec(name="email_send", description="Send"),
]


def conversation(turns: int, *, value: object = 1.5) -> list[Message]:
    messages = [Message(role="system", content="sys \u2603 \\u0000messages"), Message(role="user", content="go")]
    for turn in range(turns):
        call = ToolCallRequest(id=f"call_{turn}_0", name="fx_rate", arguments={"base": "USD", "n": value})
        messages.append(Message(role="assistant", content=None, tool_calls=[call]))
        messages.append(Message(role="tool", tool_call_id=call.id, name=call.name, content='{"rate": 1.1}'))
    return messages


@pytest.mark.parametrize("api_base", [None, "http://localhost:8080/v1/"])
def test_a_chained_key_is_todays_key_at_every_turn(api_base: str | None) -> None:
    for turns in range(4):
        for request in (
            ChatRequest(messages=conversation(turns), tools=TOOLS, seed=3, max_tokens=64),
            ChatRequest(messages=conversation(turns), response_format={"type": "json_object"}, tool_choice="auto"),
        ):
            assert cache_key("sim/agent", api_base, request) == _whole_key("sim/agent", api_base, request)


def test_the_key_still_covers_every_message_and_setting() -> None:
    base = ChatRequest(messages=conversation(2), tools=TOOLS)
    keys = {
        cache_key("m", None, base),
        cache_key("m", None, base.model_copy(update={"messages": conversation(2, value=2.5)})),
        cache_key("m", None, base.model_copy(update={"messages": conversation(2, value=None)})),
        cache_key("m", None, base.model_copy(update={"messages": conversation(2, value=True)})),
        cache_key("m", None, base.model_copy(update={"messages": conversation(2, value=1)})),
        cache_key("m", None, base.model_copy(update={"tools": TOOLS[:1]})),
        cache_key("m", None, base.model_copy(update={"seed": 1})),
        cache_key("other", None, base),
    }
    assert len(keys) == 8
    # JSON mode writes NaN as null, so the whole-request key never told them apart; the chain keeps that too.
    nan = base.model_copy(update={"messages": conversation(2, value=float("nan"))})
    assert cache_key("m", None, nan) == _whole_key("m", None, nan)


def test_a_message_changed_in_place_changes_the_key() -> None:
    messages = conversation(1)
    request = ChatRequest(messages=messages, tools=TOOLS)
    before = cache_key("m", None, request)
    messages[-1].content = '{"rate": 9.9}'  # the same object, new content: never the kept state
    assert cache_key("m", None, request) != before
    assert cache_key("m", None, request) == _whole_key("m", None, request)


def test_a_subclassed_message_is_keyed_whole() -> None:
    class Tagged(Message):
        tag: str = "x"

    request = ChatRequest(messages=[Tagged(role="user", content="hi")])
    assert cache_key("m", None, request) == _whole_key("m", None, request)


def answer(text: str) -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text))


def test_a_kept_entry_is_never_served_after_its_file_changed(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "llm")
    cache.put("ab" * 32, answer("genuine"))
    assert cache.get("ab" * 32) == answer("genuine")  # read and checked: kept
    first, second = cache.get("ab" * 32), cache.get("ab" * 32)
    assert first == second == answer("genuine") and first is not second  # served from memory, a fresh object
    path = cache.path("ab" * 32)
    record = json.loads(path.read_text())
    record["response"]["message"]["content"] = "forged"  # same length would not help: the ctime moves
    stat = path.stat()
    path.write_text(canonical_dumps(record))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # mtime set back by hand
    assert cache.get("ab" * 32) is None and cache.rejected == 1  # checked again, and refused
    cache.put("ab" * 32, answer("re-asked"))
    assert cache.get("ab" * 32) == answer("re-asked")
    path.unlink()
    assert cache.get("ab" * 32) is None
