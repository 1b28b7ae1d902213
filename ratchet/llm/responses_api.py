"""The OpenAI Responses API on the wire: `POST /v1/responses`, streaming or not, as Codex sends it.

Stateless: Codex sends the whole conversation as `input` on every turn (it runs with
`store: false`), so the proxy keeps nothing between requests and refuses `previous_response_id`
with a 400 that says so. Translated to the one internal request (docs/adr/0013): `instructions`
and system/developer messages are system messages; `function_call` items join the assistant turn
before them; `function_call_output` items are tool messages; `text.format` (json_object,
json_schema) is the response format. A `type: namespace` tool (Codex offers each MCP server as
one) becomes function tools named `<namespace>__<name>` (`mcp__ratchet__github_get_issue`, as
Claude Code names the same tool); a `function_call` item with a `namespace` gets that flat name,
and an answer's call of such a tool goes back as `{"namespace": ..., "name": <bare name>}`, the
only form Codex runs. Kept out on purpose: `reasoning` items and settings, images
and files in content, tools that are neither `type: function` nor `type: namespace` (Codex's
`local_shell`, `custom` freeform tools, web search), `store`, `include`, `parallel_tool_calls`, `prompt_cache_key`,
`metadata`, `top_p`, `truncation`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import ValidationError

from ratchet.core.chat import ChatRequest, Message, ToolCallRequest
from ratchet.core.errors import validation_summary
from ratchet.llm.body_checks import (
    MAX_TOKENS_LIMIT,
    BadBody,
    array,
    check_nesting,
    flag,
    function_tool,
    integer,
    kind,
    number,
    obj,
    text,
)
from ratchet.llm.sse import typed_frames
from ratchet.llm.wire import (
    Answer,
    Asked,
    Dialect,
    arguments_of,
    block_text,
    function_choice,
    openai_error,
)

DEFAULT_MAX_OUTPUT_TOKENS = 4096
_TEXT_PARTS = frozenset({"input_text", "output_text", "text"})
_ROLES: dict[str, Literal["user", "assistant", "system"]] = {
    "user": "user",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
}


def _items(body: dict[str, Any]) -> list[Message]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [Message(role="user", content=raw)]
    items = array(raw, "input")
    if not items:
        raise BadBody("input: must be a string or a non-empty array of input items")
    out: list[Message] = []
    for i, value in enumerate(items):
        item = obj(value, f"input[{i}]")
        kind_ = item.get("type", "message")
        at = f"input[{i}]"
        if kind_ == "message":
            raw_role = item.get("role")
            role = _ROLES.get(raw_role) if isinstance(raw_role, str) else None
            if role is None:
                raise BadBody(
                    f"{at}.role: must be one of user, assistant, system, developer, "
                    f"not {json.dumps(item.get('role'))[:40]}"
                )
            out.append(Message(role=role, content=block_text(item.get("content"), f"{at}.content", types=_TEXT_PARTS)))
        elif kind_ == "function_call":
            name = text(item.get("name"), f"{at}.name")
            if not name:
                raise BadBody(f"{at}.name: a function_call needs the function's name")
            namespace = text(item.get("namespace"), f"{at}.namespace")
            if namespace:
                name = flat_name(namespace, name)
            call = ToolCallRequest(
                id=text(item.get("call_id"), f"{at}.call_id") or "",
                name=name,
                arguments=arguments_of(item.get("arguments"), f"{at}.arguments"),
            )
            if out and out[-1].role == "assistant":
                out[-1] = out[-1].model_copy(update={"tool_calls": [*out[-1].tool_calls, call]})
            else:
                out.append(Message(role="assistant", content=None, tool_calls=[call]))
        elif kind_ == "function_call_output":
            call_id = text(item.get("call_id"), f"{at}.call_id")
            if not call_id:
                raise BadBody(f"{at}.call_id: a function_call_output needs the call_id it answers")
            output = item.get("output")
            # Codex sends an MCP result as parts ("Wall time: ...\nOutput:", then the tool's text): one a line
            result = (
                output if isinstance(output, str) else block_text(output, f"{at}.output", types=_TEXT_PARTS, sep="\n")
            )
            out.append(Message(role="tool", tool_call_id=call_id, content=result))
        # other items (reasoning, local_shell_call, web_search_call ...) carry nothing a text model reads
    return out


def _messages(body: dict[str, Any]) -> list[Message]:
    instructions = text(body.get("instructions"), "instructions")
    head = [Message(role="system", content=instructions)] if instructions else []
    return head + _items(body)


def flat_name(namespace: str, name: str) -> str:
    """A namespace tool's internal name: `mcp__ratchet` + `github_get_issue` is
    `mcp__ratchet__github_get_issue`, the name Claude Code gives the same MCP tool."""
    return f"{namespace}__{name}"


def _namespace(tool: dict[str, Any], where: str) -> list[tuple[dict[str, Any], tuple[str, str]]]:
    """A `type: namespace` tool (Codex's MCP server, its sub-agent tools) as flat function tools,
    each with the (namespace, name) it is called by."""
    namespace = text(tool.get("name"), f"{where}.name")
    if not namespace:
        raise BadBody(f"{where}.name: a namespace needs a name")
    out: list[tuple[dict[str, Any], tuple[str, str]]] = []
    for j, raw in enumerate(array(tool.get("tools"), f"{where}.tools")):
        inner = obj(raw, f"{where}.tools[{j}]")
        if inner.get("type", "function") != "function":
            continue
        spec = function_tool(inner, f"{where}.tools[{j}]", "parameters")
        out.append(({**spec, "name": flat_name(namespace, spec["name"])}, (namespace, spec["name"])))
    return out


def _tools(body: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]]]:
    """The function tools, namespace tools flattened, and the flattened names' (namespace, name)."""
    tools: list[dict[str, Any]] = []
    namespaced: dict[str, tuple[str, str]] = {}
    for i, raw in enumerate(array(body.get("tools"), "tools")):
        tool = obj(raw, f"tools[{i}]")
        if tool.get("type") == "namespace":
            for spec, origin in _namespace(tool, f"tools[{i}]"):
                tools.append(spec)
                namespaced[spec["name"]] = origin
        elif tool.get("type") == "function":
            tools.append(function_tool(tool, f"tools[{i}]", "parameters"))
    return tools, namespaced


def _tool_choice(value: Any) -> str | None:
    if value is None or value in ("auto", "none", "required"):
        return value  # type: ignore[no-any-return]
    if isinstance(value, str):
        raise BadBody(f"tool_choice: must be auto, none, required or an object, not {json.dumps(value)[:40]}")
    choice = obj(value, "tool_choice")
    if choice.get("type") == "function":
        return function_choice(choice.get("name"), "tool_choice.name")
    return None  # allowed_tools, hosted tools: no internal form; the model chooses


def _response_format(body: dict[str, Any]) -> dict[str, Any] | None:
    fmt = obj(obj(body.get("text") or {}, "text").get("format") or {}, "text.format")
    kind_ = fmt.get("type")
    if kind_ == "json_object":
        return {"type": "json_object"}
    if kind_ == "json_schema":
        schema = {k: fmt[k] for k in ("name", "schema", "strict", "description") if k in fmt}
        return {"type": "json_schema", "json_schema": schema}
    return None


def request_from_responses(body: dict[str, Any]) -> ChatRequest:
    """A Responses body as the internal ChatRequest; BadBody naming the field when malformed."""
    return _translate(body)[0]


def _translate(body: dict[str, Any]) -> tuple[ChatRequest, dict[str, tuple[str, str]]]:
    check_nesting(body)
    if body.get("previous_response_id") is not None:
        raise BadBody(
            "previous_response_id: not supported, the capture proxy is stateless and stores no "
            "response; send the whole conversation as input (Codex does, with store: false)"
        )
    if body.get("conversation") is not None:
        raise BadBody("conversation: not supported, the capture proxy is stateless; send the whole input")
    limit = body.get("max_output_tokens")
    tools, namespaced = _tools(body)
    try:
        return ChatRequest.model_validate(
            {
                "messages": _messages(body),
                "tools": tools,
                "tool_choice": _tool_choice(body.get("tool_choice")),
                "response_format": _response_format(body),
                "max_tokens": DEFAULT_MAX_OUTPUT_TOKENS
                if limit is None
                else integer(limit, "max_output_tokens", 1, MAX_TOKENS_LIMIT),
                "temperature": 0.0
                if body.get("temperature") is None
                else number(body["temperature"], "temperature", 0, 2),
            }
        ), namespaced
    except ValidationError as exc:
        raise BadBody(validation_summary(exc)) from None


def parse(body: dict[str, Any]) -> Asked:
    """A Responses body as an Asked."""
    if body.get("store") is not None and not isinstance(body["store"], bool):
        raise BadBody(f"store: must be a boolean, not {kind(body['store'])}")
    request, namespaced = _translate(body)
    return Asked(
        request=request, model=body.get("model") or "", stream=flag(body.get("stream"), "stream"), namespaced=namespaced
    )


def _ids(answer: Answer) -> str:
    return answer.response.request_digest[:24]


def _function_call(answer: Answer, asked: Asked, index: int, call: ToolCallRequest) -> dict[str, Any]:
    """A call as Codex runs it: a flattened namespace tool goes back as its namespace and bare name
    (Codex refuses the flat name as an "unsupported call")."""
    origin = asked.namespaced.get(call.name)
    named = {"name": call.name} if origin is None else {"namespace": origin[0], "name": origin[1]}
    return {
        "type": "function_call",
        "id": f"fc_{_ids(answer)}_{index}",
        "call_id": call.id,
        **named,
        "arguments": json.dumps(call.arguments),
        "status": "completed",
    }


def _output(answer: Answer, asked: Asked) -> list[dict[str, Any]]:
    message = answer.response.message
    items: list[dict[str, Any]] = []
    if message.content:
        items.append(
            {
                "type": "message",
                "id": f"msg_{_ids(answer)}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": message.content, "annotations": []}],
            }
        )
    items += [_function_call(answer, asked, i, c) for i, c in enumerate(message.tool_calls)]
    return items


def _response(answer: Answer, asked: Asked, *, done: bool) -> dict[str, Any]:
    u = answer.response.usage
    cut_short = done and answer.response.finish_reason == "length"
    return {
        "id": f"resp_{_ids(answer)}",
        "object": "response",
        "created_at": 0,
        "model": asked.model,
        "status": ("incomplete" if cut_short else "completed") if done else "in_progress",
        "incomplete_details": {"reason": "max_output_tokens"} if cut_short else None,
        "output": _output(answer, asked) if done else [],
        "error": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": asked.request.temperature,
        "tool_choice": "auto",
        "tools": [],
        "top_p": None,
        "max_output_tokens": asked.request.max_tokens,
        "usage": {
            "input_tokens": u.tokens_in,
            "input_tokens_details": {"cached_tokens": u.tokens_cached},
            "output_tokens": u.tokens_out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": u.tokens_in + u.tokens_out,
        }
        if done
        else None,
    }


def render(answer: Answer, asked: Asked) -> dict[str, Any]:
    """The non-streaming reply: one `response` object."""
    return _response(answer, asked, done=True)


def _item_events(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    if item["type"] == "message":
        part = item["content"][0]
        where = {"item_id": item["id"], "output_index": index, "content_index": 0}
        return [
            {
                "type": "response.output_item.added",
                "output_index": index,
                "item": {**item, "status": "in_progress", "content": []},
            },
            {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
            {"type": "response.output_text.delta", **where, "delta": part["text"], "logprobs": []},
            {"type": "response.output_text.done", **where, "text": part["text"], "logprobs": []},
            {"type": "response.content_part.done", **where, "part": part},
            {"type": "response.output_item.done", "output_index": index, "item": item},
        ]
    where = {"item_id": item["id"], "output_index": index}
    return [
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "status": "in_progress", "arguments": ""},
        },
        {"type": "response.function_call_arguments.delta", **where, "delta": item["arguments"]},
        {
            "type": "response.function_call_arguments.done",
            **where,
            "name": item["name"],
            "arguments": item["arguments"],
        },
        {"type": "response.output_item.done", "output_index": index, "item": item},
    ]


def stream(answer: Answer, asked: Asked) -> Iterator[str]:
    """The streaming reply, event by event, each with its `sequence_number`."""
    started = _response(answer, asked, done=False)
    final = _response(answer, asked, done=True)
    events = [{"type": "response.created", "response": started}, {"type": "response.in_progress", "response": started}]
    for index, item in enumerate(_output(answer, asked)):
        events += _item_events(index, item)
    events.append(
        {"type": "response.incomplete" if final["status"] == "incomplete" else "response.completed", "response": final}
    )
    return typed_frames({**event, "sequence_number": n} for n, event in enumerate(events))


DIALECT = Dialect(name="responses", parse=parse, render=render, stream=stream, error=openai_error, id_prefix="call_")
