"""Request keys hashed in a chain: a conversation's next turn hashes only the messages it added.

A request key is the sha256 of one canonical JSON text (ratchet.llm.cache._whole_key): the model, the
api base and the whole request, keys sorted. In that text the messages sit between a head (model, api
base, max_tokens) and a tail (response format, seed, temperature, tool choice, tools), joined by commas.
sha256 reads its input in order, so the hash state after the head and the first n messages can be kept
and extended by message n+1: the key is the same bytes hashed, not a new key, and no recorded answer is
re-keyed. An agent's turn n+1 repeats turn n's messages, so serialising and hashing them again (a
quarter of a replayed run's CPU) is what the chain saves.

A kept state is found by the exact content of the messages before it, never by object identity: each
message is fingerprinted by marshal over its field values (C speed; exact for str, int, float, bool,
None, lists and dicts, unlike JSON, which writes NaN as null), and a message that cannot be
fingerprinted that way is fingerprinted by its model_dump. A message or request of a subclass (which
could serialise differently) is keyed the whole-request way. The kept states are bounded (MAX_NODES):
past that they are dropped and the next turn hashes its conversation again.
"""

from __future__ import annotations

import hashlib
import itertools
import marshal
from typing import Any

from ratchet.core.chat import ChatRequest, Message, ToolSpec
from ratchet.core.jsonio import canonical_dumps

MAX_NODES = 16384
"""Kept hash states (one per distinct message after a distinct conversation prefix) before all are dropped."""
MAX_TOOL_SETS = 256
"""Kept serialisations of tool lists before all are dropped."""

_MESSAGES = "\x00messages\x00"  # placeholders no caller's JSON can hold unescaped: \x00 is written as \u0000
_TOOLS = "\x00tools\x00"
_MESSAGES_JSON = canonical_dumps(_MESSAGES, indent=None)
_TOOLS_JSON = canonical_dumps(_TOOLS, indent=None)

_MARSHAL_VERSION = 2  # no back-references: equal content, equal bytes (3+ depends on reference counts)
_Hash = Any  # hashlib's sha256 object has no public type
_ids = itertools.count(1)
_roots: dict[str, tuple[int, _Hash]] = {}
_nodes: dict[tuple[int, bytes], tuple[int, _Hash]] = {}
_tool_sets: dict[bytes, str] = {}


def chained_key(head: dict[str, Any], request: ChatRequest) -> str | None:
    """sha256 of canonical JSON of {**head, "request": request} (request dumped in JSON mode), or None when this
    request cannot be chained (a message or tool of a subclass, a placeholder found twice): hash it whole."""
    rest = request.model_dump(mode="json", exclude={"messages", "tools"})
    skeleton = canonical_dumps({**head, "request": {**rest, "messages": _MESSAGES, "tools": _TOOLS}}, indent=None)
    at_messages, at_tools = skeleton.find(_MESSAGES_JSON), skeleton.find(_TOOLS_JSON)
    if (
        skeleton.count(_MESSAGES_JSON) != 1
        or skeleton.count(_TOOLS_JSON) != 1
        or not at_messages < at_tools
        or any(type(message) is not Message for message in request.messages)
        or any(type(tool) is not ToolSpec for tool in request.tools)
    ):
        return None
    head_text = skeleton[:at_messages] + "["
    middle = "]" + skeleton[at_messages + len(_MESSAGES_JSON) : at_tools]
    tail = skeleton[at_tools + len(_TOOLS_JSON) :]
    node, state = _root(head_text)
    for index, message in enumerate(request.messages):
        fingerprint = _fingerprint(message)
        found = _nodes.get((node, fingerprint))
        if found is None:
            grown = state.copy()
            text = canonical_dumps(message.model_dump(mode="json"), indent=None)
            grown.update(("," + text if index else text).encode())
            found = next(_ids), grown
            if len(_nodes) >= MAX_NODES:
                _nodes.clear()
            _nodes[(node, fingerprint)] = found
        node, state = found
    final = state.copy()
    final.update((middle + _tools_text(request.tools) + tail).encode())
    key: str = final.hexdigest()
    return key


def _root(head_text: str) -> tuple[int, _Hash]:
    found = _roots.get(head_text)
    if found is None:
        found = next(_ids), hashlib.sha256(head_text.encode())
        if len(_roots) >= MAX_TOOL_SETS:
            _roots.clear()
        _roots[head_text] = found
    return found


def _tools_text(tools: list[ToolSpec]) -> str:
    fingerprint = _fingerprint_all(tools)
    text = _tool_sets.get(fingerprint)
    if text is None:
        text = canonical_dumps([tool.model_dump(mode="json") for tool in tools], indent=None)
        if len(_tool_sets) >= MAX_TOOL_SETS:
            _tool_sets.clear()
        _tool_sets[fingerprint] = text
    return text


def _fingerprint(model: Message) -> bytes:
    """Exact content of one message: marshal over its fields (a message with tool calls: over its model_dump)."""
    try:
        return marshal.dumps(model.__dict__, _MARSHAL_VERSION)
    except ValueError:  # a nested model (its tool calls): marshal takes only plain values
        return _dumped([model])


def _fingerprint_all(tools: list[ToolSpec]) -> bytes:
    try:
        return marshal.dumps([tool.__dict__ for tool in tools], _MARSHAL_VERSION)
    except ValueError:
        return _dumped(tools)


def _dumped(models: list[Message] | list[ToolSpec]) -> bytes:
    try:
        return marshal.dumps([model.model_dump() for model in models], _MARSHAL_VERSION)
    except ValueError:  # a value marshal cannot write (an enum, a date): the JSON the key hashes, exact too
        return canonical_dumps([model.model_dump(mode="json") for model in models], indent=None).encode()
