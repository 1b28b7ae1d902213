"""OpenAI Chat Completions on the wire: `POST /v1/chat/completions`, streaming or not.

The internal ChatRequest already has the Chat shape, so this is mostly checking: every field a
client can get wrong is refused with its name. Streaming sends the whole answer as chunks
(role, content, tool calls, finish) and `data: [DONE]`, plus a usage chunk when the client
asked for one with `stream_options.include_usage`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest
from ratchet.core.errors import validation_summary
from ratchet.core.jsonio import canonical_dumps
from ratchet.llm.body_checks import (
    MAX_TOKENS_LIMIT,
    SEED_RANGE,
    BadBody,
    array,
    check_nesting,
    flag,
    integer,
    kind,
    number,
    obj,
    string_list,
    text,
)
from ratchet.llm.sse import frame
from ratchet.llm.wire import Answer, Asked, Dialect, openai_error

_ROLES = ("system", "user", "assistant", "tool")


def _tool_call(raw: Any, where: str) -> ToolCallRequest:
    fn = obj(obj(raw, where).get("function") or {}, f"{where}.function")
    args = fn.get("arguments") or "{}"
    if not isinstance(args, str | dict):
        raise BadBody(f"{where}.function.arguments: must be a JSON string or an object, not {kind(args)}")
    try:
        parsed = json.loads(args) if isinstance(args, str) else args
    except (ValueError, RecursionError):  # the model's own malformed arguments are kept, not refused
        parsed = {"_raw": args}
    return ToolCallRequest(
        id=text(raw.get("id"), f"{where}.id") or "",
        name=text(fn.get("name"), f"{where}.function.name") or "",
        arguments=parsed if isinstance(parsed, dict) else {"_value": parsed},
    )


def _content(value: Any, where: str) -> str | None:
    if not isinstance(value, list):  # content parts: keep the text ones
        return text(value, where)
    parts = [obj(part, f"{where}[{i}]") for i, part in enumerate(value)]
    return "".join(text(part.get("text"), f"{where}[{i}].text") or "" for i, part in enumerate(parts))


def _message(raw: Any, where: str) -> Message:
    m = obj(raw, where)
    role = m.get("role")
    if role not in _ROLES:
        raise BadBody(f"{where}.role: must be one of {', '.join(_ROLES)}, not {json.dumps(role)[:40]}")
    return Message(
        role=role,
        content=_content(m.get("content"), f"{where}.content"),
        name=text(m.get("name"), f"{where}.name"),
        tool_call_id=text(m.get("tool_call_id"), f"{where}.tool_call_id"),
        tool_calls=[
            _tool_call(c, f"{where}.tool_calls[{i}]")
            for i, c in enumerate(array(m.get("tool_calls"), f"{where}.tool_calls"))
        ],
    )


def _tool(raw: Any, where: str) -> dict[str, Any]:
    fn = obj(obj(raw, where).get("function"), f"{where}.function")
    name = text(fn.get("name"), f"{where}.function.name")
    if not name:
        raise BadBody(f"{where}.function.name: a tool needs a name")
    parameters = fn.get("parameters")
    return {
        "name": name,
        "description": text(fn.get("description"), f"{where}.function.description") or "",
        **({"parameters": obj(parameters, f"{where}.function.parameters")} if parameters else {}),
    }


def _max_tokens(body: dict[str, Any]) -> int:
    for field in ("max_tokens", "max_completion_tokens"):
        if body.get(field) is not None:
            return integer(body[field], field, 1, MAX_TOKENS_LIMIT)
    return 1024


def chat_request_from_openai(body: dict[str, Any]) -> ChatRequest:
    """An OpenAI chat-completions body as a ChatRequest; BadBody (a ValueError naming the field) on
    anything malformed, so a client's mistake is its 400, never the proxy's 500."""
    check_nesting(body)
    raw_messages = array(body.get("messages"), "messages")
    if not raw_messages:
        raise BadBody("messages: must be a non-empty array of chat messages")
    choice = body.get("tool_choice")
    if choice is not None and not isinstance(choice, str | dict):
        raise BadBody(f"tool_choice: must be a string or an object, not {kind(choice)}")
    fmt = body.get("response_format")
    try:
        return ChatRequest.model_validate(
            {
                "messages": [_message(m, f"messages[{i}]") for i, m in enumerate(raw_messages)],
                "tools": [_tool(t, f"tools[{i}]") for i, t in enumerate(array(body.get("tools"), "tools"))],
                "tool_choice": choice if not isinstance(choice, dict) else canonical_dumps(choice, indent=None),
                "response_format": None if fmt is None else obj(fmt, "response_format"),
                "max_tokens": _max_tokens(body),
                "temperature": 0.0
                if body.get("temperature") is None
                else number(body["temperature"], "temperature", 0, 2),
                "seed": 0 if body.get("seed") is None else integer(body["seed"], "seed", *SEED_RANGE),
            }
        )
    except ValidationError as exc:
        raise BadBody(validation_summary(exc)) from None


def parse(body: dict[str, Any]) -> Asked:
    """A chat-completions body as an Asked (streaming and stop sequences kept beside the request)."""
    stream = flag(body.get("stream"), "stream")
    options = obj(body.get("stream_options") or {}, "stream_options")
    return Asked(
        request=chat_request_from_openai(body),
        model=body.get("model") or "",
        stream=stream,
        stop=string_list(body.get("stop"), "stop"),
        include_usage=flag(options.get("include_usage"), "stream_options.include_usage"),
    )


def _calls(message: Message) -> list[dict[str, Any]]:
    return [
        {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
        for c in message.tool_calls
    ]


def _usage(response: ChatResponse) -> dict[str, Any]:
    u = response.usage
    return {
        "prompt_tokens": u.tokens_in,
        "completion_tokens": u.tokens_out,
        "total_tokens": u.tokens_in + u.tokens_out,
        "prompt_tokens_details": {"cached_tokens": u.tokens_cached},
    }


def openai_from_response(response: ChatResponse, model: str) -> dict[str, Any]:
    """A ChatResponse as an OpenAI chat completion; the id comes from the request digest."""
    message: dict[str, Any] = {"role": "assistant", "content": response.message.content}
    if response.message.tool_calls:
        message["tool_calls"] = _calls(response.message)
    return {
        "id": f"ratchet-{response.request_digest[:16]}",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason}],
        "usage": _usage(response),
    }


def render(answer: Answer, asked: Asked) -> dict[str, Any]:
    """The non-streaming reply."""
    return openai_from_response(answer.response, asked.model)


def stream(answer: Answer, asked: Asked) -> Iterator[str]:
    """The streaming reply: `chat.completion.chunk` frames, then `[DONE]`."""
    response = answer.response
    head = {
        "id": f"ratchet-{response.request_digest[:16]}",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": asked.model,
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return frame({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    yield chunk({"role": "assistant", "content": ""})
    if response.message.content:
        yield chunk({"content": response.message.content})
    for i, call in enumerate(_calls(response.message)):
        yield chunk({"tool_calls": [{"index": i, **call}]})
    yield chunk({}, response.finish_reason)
    if asked.include_usage:
        yield frame({**head, "choices": [], "usage": _usage(response)})
    yield frame("[DONE]")


DIALECT = Dialect(name="chat", parse=parse, render=render, stream=stream, error=openai_error)
