"""What the proxy's wire APIs share: a parsed request, the answer a client is shown, a dialect.

Each API module (chat_api, responses_api, anthropic_api) turns its body into an `Asked`: the
one internal ChatRequest the gateway prices, caps, caches and ledgers, plus the few things that
only shape the reply (the model name the client used, streaming, stop sequences). The answer
goes back through `shown_answer`, the one place stop sequences are applied and tool-call ids
made unique, so every API tells a client the same thing about the same answer.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, Field

from ratchet.core.chat import ChatRequest, ChatResponse, ToolCallRequest
from ratchet.core.jsonio import canonical_dumps
from ratchet.llm.body_checks import BadBody, array, kind, obj, text

ApiName = Literal["chat", "responses", "anthropic"]


class Asked(BaseModel):
    """A harness's request, translated: what goes to the gateway, and how to answer it."""

    request: ChatRequest = Field(description="What the gateway is asked: the cache key is built from this alone.")
    model: str = Field(description="The model name as the client sent it, echoed in the reply.")
    stream: bool = False
    stop: list[str] = Field(default_factory=list, description="Stop sequences, applied by the proxy to the answer.")
    include_usage: bool = Field(default=False, description="Chat streaming: send a final usage chunk.")
    namespaced: dict[str, tuple[str, str]] = Field(
        default_factory=dict,
        description="Responses: a flattened namespace tool's internal name -> (namespace, "
        "name), so a call of it goes back in the namespaced form Codex runs.",
    )


class Answer(BaseModel):
    """The answer as the client is shown it, and as the capture records it."""

    response: ChatResponse
    stop_sequence: str | None = Field(default=None, description="The stop sequence that cut the text, if any.")


def shown_answer(response: ChatResponse, asked: Asked, *, id_prefix: str | None) -> Answer:
    """Apply the stop sequences and (for `id_prefix`) give tool calls ids unique to this answer.

    The upstream generates without stop sequences, so they never enter the cache key; cutting at
    the first one afterwards is what the provider would have returned, at the price of the tokens
    generated past it (an overcount, never an undercount). Tool-call ids come from the request
    digest: deterministic, and distinct between turns even when an upstream reuses `call_1`."""
    message = response.message
    cut: str | None = None
    content = message.content
    if content and asked.stop:
        hits = [(content.find(s), s) for s in asked.stop if s and s in content]
        if hits:
            at, cut = min(hits)
            content = content[:at]
    calls = [] if cut is not None else message.tool_calls
    if id_prefix is not None:
        calls = [
            ToolCallRequest(id=f"{id_prefix}{response.request_digest[:20]}_{i}", name=c.name, arguments=c.arguments)
            for i, c in enumerate(calls)
        ]
    finish = "stop" if cut is not None else response.finish_reason
    shown = response.model_copy(
        update={
            "message": message.model_copy(update={"content": content, "tool_calls": calls}),
            "finish_reason": finish,
        }
    )
    return Answer(response=shown, stop_sequence=cut)


def function_choice(name: Any, where: str) -> str:
    """A forced tool choice in the internal (Chat Completions) form."""
    fn = text(name, where)
    if not fn:
        raise BadBody(f"{where}: a forced tool choice needs the tool's name")
    return canonical_dumps({"type": "function", "function": {"name": fn}}, indent=None)


def arguments_of(raw: Any, where: str) -> dict[str, Any]:
    """Tool-call arguments from a JSON string or an object; a model's own malformed JSON is kept
    (as `_raw`), not refused, because it is what the model said."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    if not isinstance(raw, str):
        raise BadBody(f"{where}: must be a JSON string or an object, not {kind(raw)}")
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return {"_raw": raw}
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def block_text(value: Any, where: str, *, types: frozenset[str], sep: str = "") -> str:
    """The text of a content field: a string, or the `text` of the blocks whose type is in
    `types`, joined by `sep` (other blocks, such as images, are skipped: the internal request
    carries text)."""
    if isinstance(value, str) or value is None:
        return value or ""
    parts: list[str] = []
    for i, raw in enumerate(array(value, where)):
        block = obj(raw, f"{where}[{i}]")
        if block.get("type", "text") in types:
            parts.append(text(block.get("text"), f"{where}[{i}].text") or "")
    return sep.join(parts)


@dataclass(frozen=True)
class Dialect:
    """One wire API: how its body becomes an Asked, and how an Answer goes back in its shape."""

    name: ApiName
    parse: Callable[[dict[str, Any]], Asked]
    render: Callable[[Answer, Asked], dict[str, Any]]
    stream: Callable[[Answer, Asked], Iterator[str]]
    error: Callable[[int, str], dict[str, Any]]
    id_prefix: str | None = None
    """Tool-call id prefix (`toolu_`, `call_`); None keeps the upstream's ids (Chat, as before)."""


def openai_error(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error body (Chat and Responses). `type` stays `ratchet`: the SDKs map the status."""
    return {"error": {"message": message, "type": "ratchet", "param": None, "code": status}}
