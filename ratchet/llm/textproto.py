"""Tool calling without native tools: a text protocol for models that cannot emit tool calls.

The tools are described in the system message; the model calls one by replying with a
single JSON object {"name": ..., "arguments": {...}} (bare or in a code fence). Only the
first call in a reply runs. Earlier calls and tool results are replayed to the model as
plain text, so any chat endpoint can drive the agent.

The tool catalog opens the system message, before the caller's system prompt: it is the same
for every task and every edit (the world's tools), while the system prompt ends with what an
edit changes (the skill body, the catalog of skills). A server that reuses the longest cached
prompt prefix (llama.cpp, hosted prompt caches) then re-evaluates only what follows the edit,
not the ~2,500-token catalog after it. Hosted providers put native tools first the same way.
See docs/adr/0022-prompt-layout.md.
"""

from __future__ import annotations

import json
from typing import Any

from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest
from ratchet.core.jsonio import canonical_dumps, digest

PROTOCOL = (
    "You can call tools. To call one, reply with exactly one JSON object and nothing else:\n"
    '{"name": "<tool name>", "arguments": {<arguments>}}\n'
    "Only the first call in a reply runs; you will get its result in the next message.\n"
    "When you are done, reply with your final answer as plain text (no JSON object).\n"
    "Tools:\n"
)


def tools_prompt(request: ChatRequest) -> str:
    lines = [
        f"- {t.name}: {t.description}\n  parameters: {canonical_dumps(t.parameters, indent=None)}"
        for t in request.tools
    ]
    return PROTOCOL + "\n".join(lines)


def to_text_request(request: ChatRequest) -> ChatRequest:
    """The same conversation with tools described in text and no native tool fields."""
    if not request.tools:
        return request
    messages: list[Message] = []
    prompt = tools_prompt(request)
    if request.messages and request.messages[0].role == "system":
        first = request.messages[0]
        messages.append(Message(role="system", content=f"{prompt}\n\n{first.content or ''}".strip()))
        rest = request.messages[1:]
    else:
        messages.append(Message(role="system", content=prompt))
        rest = request.messages
    for m in rest:
        if m.role == "assistant" and m.tool_calls:
            call = m.tool_calls[0]
            text = canonical_dumps({"name": call.name, "arguments": call.arguments}, indent=None)
            messages.append(Message(role="assistant", content=text))
        elif m.role == "tool":
            messages.append(Message(role="user", content=f"Result of {m.name or 'the tool'}:\n{m.content or ''}"))
        else:
            messages.append(m)
    return request.model_copy(update={"messages": messages, "tools": [], "tool_choice": None})


def _json_objects(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except ValueError:
            index = text.find("{", index + 1)
            continue
        found.append(value)
        index = text.find("{", end)
    return found


def first_call(text: str, tool_names: set[str]) -> ToolCallRequest | None:
    """The first JSON object in text that names an offered tool, as a tool call."""
    for obj in _json_objects(text):
        if isinstance(obj, dict) and obj.get("name") in tool_names:
            arguments = obj.get("arguments") or {}
            if not isinstance(arguments, dict):
                arguments = {"_value": arguments}
            return ToolCallRequest(id=f"call_{digest(obj)[:12]}", name=str(obj["name"]), arguments=arguments)
    return None


def parse_text_reply(request: ChatRequest, response: ChatResponse) -> ChatResponse:
    """A text-protocol reply as a native-looking one: a tool call, or the final answer."""
    if not request.tools or response.message.tool_calls:
        return response
    call = first_call(response.message.content or "", {t.name for t in request.tools})
    if call is None:
        return response
    message = Message(role="assistant", content=None, tool_calls=[call])
    return response.model_copy(update={"message": message, "finish_reason": "tool_calls"})
