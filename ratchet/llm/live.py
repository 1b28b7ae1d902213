"""The live upstream: litellm to any provider or OpenAI-compatible base URL.

The only module that imports litellm, and only when a live call is made (importing it
costs seconds). litellm's own retries are off: retries live in ratchet.llm.retry.
"""

from __future__ import annotations

import json
import logging
import os
import re
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
# A 400 that names the response format: the server cannot be asked for structured output. Not any 400
# that says "schema" (a tool's schema, a body that fails validation): asking again without the format
# would only hide that fault.
_FORMAT_REFUSED = re.compile(
    r"response_format|json_schema|structured output|guided[_ ](?:json|decoding)|\bgrammar\b", re.IGNORECASE
)
REFUSED = "the server refused it"
# llama-cpp-python validates the request body and answers a `json_schema` type it does not know with a 500
# holding the validation error: a refusal of the format, not a crash (it takes `json_object` with a schema).
_VALIDATION_500 = re.compile(r"validation error", re.IGNORECASE)


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
        kwargs["response_format"] = wire_response_format(request.response_format)
    return kwargs


def wire_response_format(fmt: dict[str, Any]) -> dict[str, Any]:
    """A format with a schema as the standard structured-output request (`json_schema`, strict).

    The judges ask `{"type": "json_object", "schema": ...}` (ratchet.gate.judge_prompt), which only some
    servers read as a schema (llama-cpp-python does, and refuses `json_schema`: LiteLLMModel.complete falls
    back to it); `json_schema` is what OpenAI, llama-server, vLLM and Ollama constrain decoding with, and
    what litellm translates for other providers. Translated here, on the wire, so the request
    and its cache key stay the same. Any other format goes as given."""
    schema = fmt.get("schema")
    if fmt.get("type") != "json_object" or not isinstance(schema, dict):
        return fmt
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


def format_not_taken(litellm: Any, model: str) -> str | None:
    """Why litellm will not send `response_format` to this model (it drops what a provider does not take,
    `drop_params`), or None when it will."""
    try:
        name, provider, _, _ = litellm.get_llm_provider(model=model)
        params = litellm.get_supported_openai_params(model=name, custom_llm_provider=provider) or []
    except Exception:  # litellm does not know the route: it cannot say it takes the format
        params = []
    return None if "response_format" in params else f"litellm says {model} does not take response_format"


def _parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw or "{}")
    except (TypeError, ValueError):
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def _cached_tokens(data: dict[str, Any]) -> int:
    """Prompt tokens the server served from its prompt cache: OpenAI's (and litellm's providers')
    `usage.prompt_tokens_details.cached_tokens`, else llama.cpp llama-server's `timings.cache_n`."""
    details = (data.get("usage") or {}).get("prompt_tokens_details") or {}
    if details.get("cached_tokens") is not None:
        return int(details["cached_tokens"])
    return int((data.get("timings") or {}).get("cache_n") or 0)


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
    return ChatResponse(
        message=Message(role="assistant", content=msg.get("content"), tool_calls=calls),
        usage=Usage(
            tokens_in=int(usage.get("prompt_tokens") or 0),
            tokens_out=int(usage.get("completion_tokens") or 0),
            tokens_cached=_cached_tokens(data),
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
        # Whether this model can be asked for a response format: litellm's word (None: not asked yet), and
        # whether the server refused a schema once in this run.
        self._not_taken: str | None = None
        self._format_checked = False
        self._refused = False
        self._schema_refused = False  # the server refused `json_schema`: the judges' own format is sent instead
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
        """One call. A response format this model cannot be asked for is not sent (litellm says it does not take
        one, or the server refused it once: the call is made again without it, and so is every later one); the
        answer then says why it is free text (ChatResponse.free_text), and a judge's verdict names the tier."""
        key = key_from_env(self.tier.api_key_env)
        if self.tier.api_key_env and key is None:
            raise UpstreamError(
                f"environment variable {self.tier.api_key_env} is not set (the key for {self.tier.model})",
                retryable=False,
            )
        litellm = self._client_module()
        kwargs = request_kwargs(request)
        # Only a schema request (the judges') is asked again without its format: any other caller (a harness
        # through the proxy) gets the server's refusal, as it would without Ratchet in between.
        schema = "response_format" in kwargs and kwargs["response_format"] != request.response_format
        free_text = self._format_unavailable(litellm, schema=schema) if "response_format" in kwargs else None
        if free_text is not None:
            del kwargs["response_format"]
        elif schema and self._schema_refused:
            kwargs["response_format"] = request.response_format
        result = self._call(litellm, key, kwargs)
        if isinstance(result, UpstreamError) and schema and free_text is None and _format_refused(result):
            result, free_text = self._after_refusal(litellm, key, kwargs, request)
        if isinstance(result, UpstreamError):
            # Raised here, outside any except block: the provider's exception (which may hold the
            # key) is not even kept as __context__.
            raise result
        data = result.model_dump() if hasattr(result, "model_dump") else dict(result)
        response = parse_openai_response(data, self.tier.model)
        return response if free_text is None else response.model_copy(update={"free_text": free_text})

    def _after_refusal(
        self, litellm: Any, key: str | None, kwargs: dict[str, Any], request: ChatRequest
    ) -> tuple[Any, str | None]:
        """The call again after the server refused its format: a refused `json_schema` first becomes the judges'
        own `json_object` with its schema (llama-cpp-python constrains decoding with it, others read it as JSON
        mode: still structured, no note); refused too, or refused as asked, the call goes without a format and
        the answer says why it is free text. Each step is remembered for the later calls."""
        if kwargs["response_format"] != request.response_format:
            with self._lock:
                self._schema_refused = True
            kwargs["response_format"] = request.response_format
            result = self._call(litellm, key, kwargs)
            if not (isinstance(result, UpstreamError) and _format_refused(result)):
                return result, None
        with self._lock:
            self._refused = True
        del kwargs["response_format"]
        return self._call(litellm, key, kwargs), REFUSED

    def _format_unavailable(self, litellm: Any, *, schema: bool) -> str | None:
        """Why the format is not sent: litellm would drop it, or (for a schema) the server refused one."""
        with self._lock:
            if not self._format_checked:
                self._not_taken = format_not_taken(litellm, self.tier.model)
                self._format_checked = True
            return self._not_taken or (REFUSED if schema and self._refused else None)

    def _call(self, litellm: Any, key: str | None, kwargs: dict[str, Any]) -> Any:
        """litellm's answer, or the failure as a scrubbed UpstreamError (returned, not raised)."""
        try:
            return litellm.completion(
                model=self.tier.model,
                api_base=self.tier.api_base,
                api_key=key or _NO_KEY,
                timeout=self.timeout_s,
                num_retries=0,
                max_retries=0,
                client=self._openai_client(key),
                **kwargs,
            )
        except Exception as exc:
            return classify(exc, [key], api_base=self.tier.api_base)


def _format_refused(failure: UpstreamError) -> bool:
    """A 400 or 422 naming the response format, or a 500 that is the server's own validation of it."""
    text = str(failure)
    if _FORMAT_REFUSED.search(text) is None:
        return False
    return failure.status in (400, 422) or (failure.status == 500 and _VALIDATION_500.search(text) is not None)
