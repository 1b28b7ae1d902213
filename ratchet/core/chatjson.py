"""Compact canonical JSON of a request's messages and tools, kept by exact content for a process.

An agent's turn n+1 repeats turn n's messages, and two places serialise them on every model call: the
gateway's worst-case price of a call (ratchet.llm.pricing.input_token_bound) and the simulator's token
counts (ratchet.sim.agent). Compact canonical JSON is compositional (a list's text is its items' texts
joined by commas), so each message is serialised once and joined after: the same text, not an estimate.

A kept text is found by the exact content of its message, never by object identity: marshal over the
message's field values (as ratchet.llm.keychain fingerprints them; exact for str, int, float, bool, None,
lists and dicts), else over its model_dump. A message or tool of a subclass (which could serialise
differently), or one marshal cannot write, is serialised each time. The kept texts are bounded.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Sequence
from typing import Any

from ratchet.core.chat import Message, ToolSpec
from ratchet.core.jsonio import canonical_dumps

MAX_KEPT = 8192
"""Kept message texts (and, apart, tool-list texts) before all are dropped."""

_MARSHAL_VERSION = 2  # no back-references: equal content, equal bytes
_messages: dict[bytes, str] = {}
_tool_lists: dict[bytes, str] = {}


def messages_json(messages: Sequence[Message]) -> str:
    """canonical_dumps([m.model_dump(mode="json") for m in messages], indent=None)."""
    return "[" + ",".join(_message_json(message) for message in messages) + "]"


def tools_json(tools: Sequence[ToolSpec]) -> str:
    """canonical_dumps([t.model_dump(mode="json") for t in tools], indent=None)."""
    fingerprint = _fingerprint([tool.__dict__ for tool in tools]) if all(type(t) is ToolSpec for t in tools) else None
    if fingerprint is None:
        return canonical_dumps([tool.model_dump(mode="json") for tool in tools], indent=None)
    return _kept(_tool_lists, fingerprint, lambda: [tool.model_dump(mode="json") for tool in tools])


def _message_json(message: Message) -> str:
    if type(message) is not Message:
        return canonical_dumps(message.model_dump(mode="json"), indent=None)
    # A message with tool calls holds models marshal cannot write: its plain dump is fingerprinted instead.
    fingerprint = _fingerprint(message.__dict__ if not message.tool_calls else message.model_dump())
    if fingerprint is None:
        return canonical_dumps(message.model_dump(mode="json"), indent=None)
    return _kept(_messages, fingerprint, lambda: message.model_dump(mode="json"))


def _fingerprint(value: Any) -> bytes | None:
    try:
        return marshal.dumps(value, _MARSHAL_VERSION)
    except ValueError:  # a value marshal cannot write (a model, an enum, a date)
        return None


def _kept(kept: dict[bytes, str], fingerprint: bytes, dump: Callable[[], Any]) -> str:
    text = kept.get(fingerprint)
    if text is None:
        text = canonical_dumps(dump(), indent=None)
        if len(kept) >= MAX_KEPT:
            kept.clear()
        kept[fingerprint] = text
    return text
