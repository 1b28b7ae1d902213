"""The live upstream: litellm to any provider or OpenAI-compatible base URL.

The only module that imports litellm, and only when a live call is made (importing it
costs seconds). litellm's own retries are off: retries live in ratchet.llm.retry.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import weakref
from typing import Any

from ratchet.config.project import TierConfig
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest, Usage
from ratchet.llm.retry import UpstreamError
from ratchet.llm.secrets import key_from_env, scrub

_RETRYABLE_STATUS = frozenset({408, 409, 425, 429})
_RETRYABLE_NAMES = frozenset(
    {
        "Timeout",
        "APIConnectionError",
        "RateLimitError",
        "InternalServerError",
        "ServiceUnavailableError",
        "APITimeoutError",
    }
)
# A local server (llama.cpp, vLLM, Ollama) needs no key, but the OpenAI client insists on one.
_NO_KEY = "no-key"


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    litellm.num_retries = 0
    litellm.telemetry = False
    litellm.drop_params = True
    # litellm logs request details on errors; nothing of it must reach a log a key could leak into.
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy", "litellm"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    return litellm


def to_openai_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Our messages in the OpenAI chat shape."""
    out: list[dict[str, Any]] = []
    for m in messages:
        item: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.tool_calls:
            item["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(c.arguments, sort_keys=True)},
                }
                for c in m.tool_calls
            ]
        if m.role == "tool":
            item["tool_call_id"] = m.tool_call_id
            if m.name:
                item["name"] = m.name
        out.append(item)
    return out


def request_kwargs(request: ChatRequest) -> dict[str, Any]:
    """The answer-changing part of an OpenAI chat request."""
    kwargs: dict[str, Any] = {
        "messages": to_openai_messages(request.messages),
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
    }
    if request.tools:
        kwargs["tools"] = [
            {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
    if request.tool_choice is not None:
        kwargs["tool_choice"] = request.tool_choice
    if request.response_format is not None:
        kwargs["response_format"] = request.response_format
    return kwargs


def _parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def parse_openai_response(data: dict[str, Any], model_id: str) -> ChatResponse:
    """An OpenAI chat completion (as a dict) as our ChatResponse."""
    choice = (data.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    calls = [
        ToolCallRequest(
            id=c.get("id") or f"call_{i}",
            name=(c.get("function") or {}).get("name", ""),
            arguments=_parse_arguments((c.get("function") or {}).get("arguments")),
        )
        for i, c in enumerate(msg.get("tool_calls") or [])
    ]
    usage = data.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return ChatResponse(
        message=Message(role="assistant", content=msg.get("content"), tool_calls=calls),
        usage=Usage(
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            tokens_cached=int(details.get("cached_tokens") or 0),
        ),
        model=model_id,
        finish_reason=choice.get("finish_reason") or "stop",
    )


def _connection_failure(exc: BaseException) -> str | None:
    """What kind of connection failure `exc` wraps, or None when the upstream did answer.

    litellm reports a refused connection as InternalServerError (500), so the cause chain,
    not the outer name, tells a dead server from a provider's 500."""
    link: BaseException | None = exc
    depth = 0
    seen = False
    while link is not None:
        name = type(link).__name__
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return "host not found"
        seen = seen or name in ("APIConnectionError", "ConnectError")
        link = link.__cause__ or link.__context__
        depth += 1
        if depth > 20:  # a cyclic chain
            break
    return "connection error" if seen else None


def classify(exc: Exception, secrets: list[str | None], *, api_base: str | None = None) -> UpstreamError:
    """A litellm/httpx exception as a scrubbed UpstreamError that says whether to retry."""
    connection = _connection_failure(exc)
    if connection is not None and "Timeout" not in type(exc).__name__:
        where = f" to {api_base}" if api_base else ""
        return UpstreamError(scrub(f"{connection}{where}", secrets), retryable=True)
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    name = type(exc).__name__
    retryable = name in _RETRYABLE_NAMES or (status is not None and (status >= 500 or status in _RETRYABLE_STATUS))
    if name in ("AuthenticationError", "BadRequestError", "NotFoundError", "PermissionDeniedError"):
        retryable = False
    text = " ".join(str(exc).split())[:300]
    return UpstreamError(
        scrub(f"{name}{f' ({status})' if status else ''}: {text}", secrets), retryable=retryable, status=status
    )


def _close_box(box: list[Any]) -> None:
    if box[0] is not None:
        box[0].close()
        box[0] = None


class LiteLLMModel:
    """One tier's model over litellm. Its config names the key's env var; the key itself is
    read at call time and lives only inside the HTTP client."""

    def __init__(self, tier: TierConfig, *, timeout_s: float) -> None:
        self.tier = tier
        self.timeout_s = timeout_s
        self._module: Any = None  # litellm, once a call needs it (_client_module)
        self._lock = threading.Lock()
        self._box: list[Any] = [None]  # the client, closed by close() or when this model is collected
        self._client_key: str | None = None
        weakref.finalize(self, _close_box, self._box)

    def _client_module(self) -> Any:
        """litellm, imported by the first call that reaches the upstream, not with the model.

        Why: importing it costs seconds, and a model is made for every tier a run names, so a repeated
        check whose answers all come from the cache would pay them for nothing (issue 16). The gateway
        calls `prepare` on a cache miss and keeps its seconds out of the call's latency.
        """
        with self._lock:
            if self._module is None:
                self._module = _litellm()
            return self._module

    def prepare(self) -> None:
        """Import the client now (the gateway calls this on a miss, before it times the call)."""
        self._client_module()

    def _openai_client(self, key: str | None) -> Any:
        """One OpenAI client per model, owned (and closed) by us: litellm's own client cache
        races under threads and leaks sockets. Only for OpenAI-compatible routes."""
        if not self.tier.model.startswith("openai/"):
            return None
        with self._lock:
            if self._box[0] is None or self._client_key != key:
                import openai

                _close_box(self._box)
                self._box[0] = openai.OpenAI(
                    api_key=key or _NO_KEY, base_url=self.tier.api_base, max_retries=0, timeout=self.timeout_s
                )
                self._client_key = key
            return self._box[0]

    def close(self) -> None:
        with self._lock:
            _close_box(self._box)

    @property
    def model_id(self) -> str:
        return self.tier.model

    def complete(self, request: ChatRequest) -> ChatResponse:
        key = key_from_env(self.tier.api_key_env)
        if self.tier.api_key_env and key is None:
            raise UpstreamError(
                f"environment variable {self.tier.api_key_env} is not set (the key for {self.tier.model})",
                retryable=False,
            )
        litellm = self._client_module()
        failure: UpstreamError | None = None
        try:
            result = litellm.completion(
                model=self.tier.model,
                api_base=self.tier.api_base,
                api_key=key or _NO_KEY,
                timeout=self.timeout_s,
                num_retries=0,
                max_retries=0,
                client=self._openai_client(key),
                **request_kwargs(request),
            )
        except Exception as exc:
            failure = classify(exc, [key], api_base=self.tier.api_base)
        if failure is not None:
            # Raised outside the except block: the provider's exception (which may hold the
            # key) is not even kept as __context__.
            raise failure
        data = result.model_dump() if hasattr(result, "model_dump") else dict(result)
        return parse_openai_response(data, self.tier.model)
