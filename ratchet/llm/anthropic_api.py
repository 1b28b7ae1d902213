"""The Anthropic Messages API on the wire: `POST /v1/messages` (streaming or not) and
`POST /v1/messages/count_tokens`, as Claude Code sends them.

Translated to the one internal request (docs/adr/0013): `system` (a string or text blocks) is
the system message; a message with `role: "system"` inside `messages` (Claude Code sends its
environment, MCP server instructions and skill catalog that way) is a system message at that
position, so what the model reads keeps its order; a user turn's `tool_result` blocks become tool messages, ahead of its text;
an assistant turn's `tool_use` blocks become its tool calls. Kept out on purpose, because they do
not change what a text model is asked or because the internal request cannot carry them:
`thinking`/`redacted_thinking` blocks, images, documents, `cache_control`, `metadata`, `top_p`,
`top_k`, `thinking`, `disable_parallel_tool_use` and server tools (those with a `type` and no
`input_schema`). `is_error` on a tool result prefixes its text with `Error: `.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationError

from ratchet.core.chat import ChatRequest, Message, ToolCallRequest, approx_tokens
from ratchet.core.errors import validation_summary
from ratchet.core.jsonio import canonical_dumps
from ratchet.llm.body_checks import (
    MAX_TOKENS_LIMIT,
    BadBody,
    array,
    check_nesting,
    flag,
    function_tool,
    integer,
    number,
    obj,
    string_list,
    text,
)
from ratchet.llm.sse import typed_frames
from ratchet.llm.wire import Answer, Asked, Dialect, block_text, function_choice

_TEXT = frozenset({"text"})
_STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _blocks(value: Any, where: str) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return [obj(b, f"{where}[{i}]") for i, b in enumerate(array(value, where))]


def _user_turn(content: Any, where: str) -> list[Message]:
    """Tool results first (they answer the previous assistant turn), then the user's text."""
    tools: list[Message] = []
    texts: list[str] = []
    for i, block in enumerate(_blocks(content, where)):
        at = f"{where}[{i}]"
        kind = block.get("type")
        if kind == "text":
            texts.append(text(block.get("text"), f"{at}.text") or "")
        elif kind == "tool_result":
            call_id = text(block.get("tool_use_id"), f"{at}.tool_use_id")
            if not call_id:
                raise BadBody(f"{at}.tool_use_id: a tool_result needs the id of the tool_use it answers")
            result = block_text(block.get("content"), f"{at}.content", types=_TEXT)
            if flag(block.get("is_error"), f"{at}.is_error"):
                result = f"Error: {result}"
            tools.append(Message(role="tool", tool_call_id=call_id, content=result))
    user = [Message(role="user", content="\n\n".join(texts))] if texts or not tools else []
    return tools + user


def _assistant_turn(content: Any, where: str) -> Message:
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    for i, block in enumerate(_blocks(content, where)):
        at = f"{where}[{i}]"
        kind = block.get("type")
        if kind == "text":
            texts.append(text(block.get("text"), f"{at}.text") or "")
        elif kind == "tool_use":
            name = text(block.get("name"), f"{at}.name")
            if not name:
                raise BadBody(f"{at}.name: a tool_use needs the tool's name")
            calls.append(
                ToolCallRequest(
                    id=text(block.get("id"), f"{at}.id") or "",
                    name=name,
                    arguments=obj(block.get("input") or {}, f"{at}.input"),
                )
            )
    return Message(role="assistant", content="".join(texts) or None, tool_calls=calls)


def _system_text(value: Any, where: str) -> str:
    """A system prompt's text: a string, or its text blocks joined by blank lines."""
    return "\n\n".join(
        text(b.get("text"), f"{where}[{i}].text") or ""
        for i, b in enumerate(_blocks(value, where))
        if b.get("type") == "text"
    )


def _messages(body: dict[str, Any]) -> list[Message]:
    out: list[Message] = []
    system = body.get("system")
    if system is not None:
        out.append(Message(role="system", content=_system_text(system, "system")))
    raw = array(body.get("messages"), "messages")
    if not raw:
        raise BadBody("messages: must be a non-empty array of messages")
    for i, item in enumerate(raw):
        m = obj(item, f"messages[{i}]")
        role = m.get("role")
        where = f"messages[{i}].content"
        if role == "user":
            out.extend(_user_turn(m.get("content"), where))
        elif role == "assistant":
            out.append(_assistant_turn(m.get("content"), where))
        elif role == "system":  # Claude Code's environment, MCP instructions and skill catalog
            out.append(Message(role="system", content=_system_text(m.get("content"), where)))
        else:
            raise BadBody(f"messages[{i}].role: must be user, assistant or system, not {json.dumps(role)[:40]}")
    return out


def _tools(body: dict[str, Any]) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for i, raw in enumerate(array(body.get("tools"), "tools")):
        tool = obj(raw, f"tools[{i}]")
        if tool.get("input_schema") is None and tool.get("type") not in (None, "custom"):
            continue  # a server tool (web_search_..., bash_...): nothing a text model can be offered
        tools.append(function_tool(tool, f"tools[{i}]", "input_schema"))
    return tools


def _tool_choice(value: Any) -> str | None:
    if value is None:
        return None
    choice = obj(value, "tool_choice")
    kind = choice.get("type")
    if kind == "tool":
        return function_choice(choice.get("name"), "tool_choice.name")
    mapped = {"auto": "auto", "any": "required", "none": "none"}.get(kind if isinstance(kind, str) else "")
    if mapped is None:
        raise BadBody(f"tool_choice.type: must be auto, any, tool or none, not {json.dumps(kind)[:40]}")
    return mapped


def request_from_anthropic(body: dict[str, Any], *, need_max_tokens: bool = True) -> ChatRequest:
    """A Messages body as the internal ChatRequest; BadBody naming the field when malformed."""
    check_nesting(body)
    obj(body.get("metadata") or {}, "metadata")
    if body.get("max_tokens") is None and need_max_tokens:
        raise BadBody("max_tokens: required (the Messages API has no default)")
    try:
        return ChatRequest.model_validate(
            {
                "messages": _messages(body),
                "tools": _tools(body),
                "tool_choice": _tool_choice(body.get("tool_choice")),
                "max_tokens": integer(
                    1024 if body.get("max_tokens") is None else body["max_tokens"], "max_tokens", 1, MAX_TOKENS_LIMIT
                ),
                "temperature": 0.0
                if body.get("temperature") is None
                else number(body["temperature"], "temperature", 0, 1),
            }
        )
    except ValidationError as exc:
        raise BadBody(validation_summary(exc)) from None


def parse(body: dict[str, Any]) -> Asked:
    """A Messages body as an Asked."""
    return Asked(
        request=request_from_anthropic(body),
        model=body.get("model") or "",
        stream=flag(body.get("stream"), "stream"),
        stop=string_list(body.get("stop_sequences"), "stop_sequences"),
    )


def count_tokens(body: dict[str, Any]) -> dict[str, int]:
    """`count_tokens`: the simulator's estimate (about 4 characters a token) of the translated
    request. No model is called, so nothing is priced or ledgered."""
    request = request_from_anthropic(body, need_max_tokens=False)
    prompt = canonical_dumps(
        {
            "messages": [m.model_dump(mode="json") for m in request.messages],
            "tools": [t.model_dump(mode="json") for t in request.tools],
        },
        indent=None,
    )
    return {"input_tokens": approx_tokens(prompt)}


def _content(answer: Answer) -> list[dict[str, Any]]:
    message = answer.response.message
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments} for c in message.tool_calls]
    return blocks


def _stop_reason(answer: Answer) -> str:
    if answer.stop_sequence is not None:
        return "stop_sequence"
    return _STOP_REASONS.get(answer.response.finish_reason, "end_turn")


def _usage(answer: Answer, *, output: bool = True) -> dict[str, int]:
    u = answer.response.usage
    return {
        "input_tokens": u.tokens_in - u.tokens_cached,
        "output_tokens": u.tokens_out if output else 0,
        "cache_read_input_tokens": u.tokens_cached,
        "cache_creation_input_tokens": 0,
    }


def _message(answer: Answer, asked: Asked, content: list[dict[str, Any]], *, done: bool) -> dict[str, Any]:
    return {
        "id": f"msg_{answer.response.request_digest[:24]}",
        "type": "message",
        "role": "assistant",
        "model": asked.model,
        "content": content,
        "stop_reason": _stop_reason(answer) if done else None,
        "stop_sequence": answer.stop_sequence if done else None,
        "usage": _usage(answer, output=done),
    }


def render(answer: Answer, asked: Asked) -> dict[str, Any]:
    """The non-streaming reply: one `message` object."""
    return _message(answer, asked, _content(answer), done=True)


def stream(answer: Answer, asked: Asked) -> Iterator[str]:
    """The streaming reply, event by event as the Messages API sends it."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": _message(answer, asked, [], done=False)},
        {"type": "ping"},
    ]
    for index, block in enumerate(_content(answer)):
        start: dict[str, Any]
        delta: dict[str, Any]
        if block["type"] == "text":
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        events += [
            {"type": "content_block_start", "index": index, "content_block": start},
            {"type": "content_block_delta", "index": index, "delta": delta},
            {"type": "content_block_stop", "index": index},
        ]
    events += [
        {
            "type": "message_delta",
            "delta": {"stop_reason": _stop_reason(answer), "stop_sequence": answer.stop_sequence},
            "usage": {"output_tokens": answer.response.usage.tokens_out},
        },
        {"type": "message_stop"},
    ]
    return typed_frames(events)


def error(status: int, message: str) -> dict[str, Any]:
    """Anthropic's error body; the type follows the status as the API documents it."""
    return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}


DIALECT = Dialect(name="anthropic", parse=parse, render=render, stream=stream, error=error, id_prefix="toolu_")
