"""The capture proxy: an OpenAI-compatible endpoint on 127.0.0.1 over the gateway.

Any agent harness pointed at it gets every call priced, capped, cached and written to the
ledger, and each exchange appended to <home>/captures/<run>.jsonl, from which
`trace_from_capture` builds a Trace for blessing. Loopback only, a per-run bearer token,
and a Host check (a browser page cannot reach it through DNS rebinding).
Headers: X-Ratchet-Run (default: the proxy's run), X-Ratchet-Purpose (default: capture),
X-Ratchet-Task (when set, the exchange also refreshes pending/<task>.json for `ratchet bless`).
The request's `model` names a tier (agent, nano ...) or a tier's configured model id.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from ratchet.config import Project
from ratchet.errors import BudgetError, ConfigError, InputError, ModelCallError, validation_summary
from ratchet.jsonio import canonical_dumps
from ratchet.llm.gateway import Gateway
from ratchet.llm.types import ChatRequest, ChatResponse, Message, ToolCallRequest, Usage
from ratchet.store import Store
from ratchet.trace import ModelCall, ToolCall, Trace, write_trace

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
MAX_TOKENS_LIMIT = 1_000_000
MAX_NESTING = 64
_ROLES = ("system", "user", "assistant", "tool")
_SEED_RANGE = (-(2**63), 2**63 - 1)


class BadBody(ValueError):
    """A chat body the proxy cannot take; the message names the field (`messages[0].role: ...`)."""


def _kind(value: Any) -> str:
    """The JSON type of a parsed value, as a client would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise BadBody(f"{where}: must be an object, not {_kind(value)}")
    return value


def _array(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise BadBody(f"{where}: must be an array, not {_kind(value)}")
    return value


def _text(value: Any, where: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise BadBody(f"{where}: must be a string, not {_kind(value)}")
    return value


def _integer(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        got = repr(value) if isinstance(value, float) else _kind(value)
        raise BadBody(f"{where}: must be an integer, not {got}")
    if not low <= value <= high:
        shown = value if abs(value) < 10**20 else f"{str(value)[:12]}..."
        raise BadBody(f"{where}: must be between {low} and {high}, not {shown}")
    return value


def _number(value: Any, where: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadBody(f"{where}: must be a number, not {_kind(value)}")
    if not low <= value <= high:  # NaN fails this too
        raise BadBody(f"{where}: must be between {low:g} and {high:g}, not {value}")
    return float(value)


def _check_nesting(body: Any) -> None:
    """Iteratively, so a hostile body cannot exhaust the stack of the checker itself."""
    stack: list[tuple[Any, int]] = [(body, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_NESTING:
            raise BadBody(f"the body is nested deeper than {MAX_NESTING} levels")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))


def _tool_call(raw: Any, where: str) -> ToolCallRequest:
    fn = _object(_object(raw, where).get("function") or {}, f"{where}.function")
    args = fn.get("arguments") or "{}"
    if not isinstance(args, str | dict):
        raise BadBody(f"{where}.function.arguments: must be a JSON string or an object, not {_kind(args)}")
    try:
        parsed = json.loads(args) if isinstance(args, str) else args
    except (ValueError, RecursionError):  # the model's own malformed arguments are kept, not refused
        parsed = {"_raw": args}
    return ToolCallRequest(id=_text(raw.get("id"), f"{where}.id") or "",
                           name=_text(fn.get("name"), f"{where}.function.name") or "",
                           arguments=parsed if isinstance(parsed, dict) else {"_value": parsed})


def _content(value: Any, where: str) -> str | None:
    if not isinstance(value, list):  # content parts: keep the text ones
        return _text(value, where)
    parts = [_object(part, f"{where}[{i}]") for i, part in enumerate(value)]
    return "".join(_text(part.get("text"), f"{where}[{i}].text") or "" for i, part in enumerate(parts))


def _message(raw: Any, where: str) -> Message:
    m = _object(raw, where)
    role = m.get("role")
    if role not in _ROLES:
        raise BadBody(f"{where}.role: must be one of {', '.join(_ROLES)}, not {json.dumps(role)[:40]}")
    return Message(role=role, content=_content(m.get("content"), f"{where}.content"),
                   name=_text(m.get("name"), f"{where}.name"),
                   tool_call_id=_text(m.get("tool_call_id"), f"{where}.tool_call_id"),
                   tool_calls=[_tool_call(c, f"{where}.tool_calls[{i}]")
                               for i, c in enumerate(_array(m.get("tool_calls"), f"{where}.tool_calls"))])


def _tool(raw: Any, where: str) -> dict[str, Any]:
    fn = _object(_object(raw, where).get("function"), f"{where}.function")
    name = _text(fn.get("name"), f"{where}.function.name")
    if not name:
        raise BadBody(f"{where}.function.name: a tool needs a name")
    parameters = fn.get("parameters")
    return {"name": name, "description": _text(fn.get("description"), f"{where}.function.description") or "",
            **({"parameters": _object(parameters, f"{where}.function.parameters")} if parameters else {})}


def _max_tokens(body: dict[str, Any]) -> int:
    for field in ("max_tokens", "max_completion_tokens"):
        if body.get(field) is not None:
            return _integer(body[field], field, 1, MAX_TOKENS_LIMIT)
    return 1024


def chat_request_from_openai(body: dict[str, Any]) -> ChatRequest:
    """An OpenAI chat-completions body as a ChatRequest; BadBody (a ValueError naming the field) on
    anything malformed, so a client's mistake is its 400, never the proxy's 500."""
    _check_nesting(body)
    if body.get("stream") is not None and not isinstance(body["stream"], bool):
        raise BadBody(f"stream: must be a boolean, not {_kind(body['stream'])}")
    if body.get("stream"):
        raise BadBody("stream=true is not supported by the capture proxy")
    raw_messages = _array(body.get("messages"), "messages")
    if not raw_messages:
        raise BadBody("messages: must be a non-empty array of chat messages")
    choice = body.get("tool_choice")
    if choice is not None and not isinstance(choice, str | dict):
        raise BadBody(f"tool_choice: must be a string or an object, not {_kind(choice)}")
    fmt = body.get("response_format")
    try:
        return ChatRequest.model_validate({
            "messages": [_message(m, f"messages[{i}]") for i, m in enumerate(raw_messages)],
            "tools": [_tool(t, f"tools[{i}]") for i, t in enumerate(_array(body.get("tools"), "tools"))],
            "tool_choice": choice if not isinstance(choice, dict) else canonical_dumps(choice, indent=None),
            "response_format": None if fmt is None else _object(fmt, "response_format"),
            "max_tokens": _max_tokens(body),
            "temperature": 0.0 if body.get("temperature") is None else _number(body["temperature"], "temperature", 0, 2),
            "seed": 0 if body.get("seed") is None else _integer(body["seed"], "seed", *_SEED_RANGE),
        })
    except ValidationError as exc:
        raise BadBody(validation_summary(exc)) from None


def openai_from_response(response: ChatResponse, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": response.message.content}
    if response.message.tool_calls:
        message["tool_calls"] = [{"id": c.id, "type": "function",
                                  "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                 for c in response.message.tool_calls]
    u = response.usage
    return {
        "id": f"ratchet-{response.request_digest[:16]}", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": response.finish_reason}],
        "usage": {"prompt_tokens": u.tokens_in, "completion_tokens": u.tokens_out,
                  "total_tokens": u.tokens_in + u.tokens_out,
                  "prompt_tokens_details": {"cached_tokens": u.tokens_cached}},
    }


class CaptureProxy:
    """The proxy app plus its gateways (one per run header) and capture files."""

    def __init__(self, project: Project, store: Store, *, run_id: str, token: str | None = None,
                 cache_mode: str = "once", budget_usd: float | None = None,
                 gateway_options: dict[str, Any] | None = None) -> None:
        self.project = project
        self.store = store
        self.run_id = run_id
        self.token = token or secrets.token_urlsafe(24)
        self.cache_mode = cache_mode
        self.budget_usd = budget_usd
        self.gateway_options = gateway_options or {}
        self._gateways: dict[str, Gateway] = {}
        self._lock = threading.Lock()
        self.gateway(run_id)  # validate config now, not at the first request
        self.app = self._build()

    def gateway(self, run_id: str) -> Gateway:
        with self._lock:
            gw = self._gateways.get(run_id)
            if gw is None:
                gw = Gateway(self.project, self.store, run_id=run_id, cache_mode=self.cache_mode,
                             budget_usd=self.budget_usd, **self.gateway_options)
                self._gateways[run_id] = gw
            return gw

    def close(self) -> None:
        with self._lock:
            for gw in self._gateways.values():
                gw.close()

    def tier_for(self, model: str) -> str | None:
        tiers = self.project.config.tiers
        if model in tiers:
            return model
        return next((name for name, t in sorted(tiers.items()) if t.model == model), None)

    def capture_path(self, run_id: str, task_id: str | None = None) -> Path:
        return self.project.home / "captures" / run_id / f"{task_id or '_untasked'}.jsonl"

    def _record(self, run_id: str, task_id: str | None, tier: str, purpose: str,
                request: ChatRequest, response: ChatResponse) -> None:
        line = canonical_dumps({"tier": tier, "purpose": purpose, "request": request.model_dump(mode="json"),
                                "response": response.model_dump(mode="json")}, indent=None)
        path = self.capture_path(run_id, task_id)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            if task_id:
                trace = trace_from_capture(path, task_id=task_id, frozen_time=self.project.config.clock)
                write_trace(self.project.pending_dir / f"{task_id}.json", trace)

    def _build(self) -> FastAPI:
        app = FastAPI(title="ratchet capture proxy", docs_url=None, redoc_url=None, openapi_url=None)

        def error(status: int, message: str) -> JSONResponse:
            return JSONResponse(status_code=status, content={"error": {"message": message, "type": "ratchet"}})

        @app.middleware("http")
        async def guard(request: Request, call_next: Any) -> Any:
            host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
            if host not in LOOPBACK_NAMES:
                return error(403, "foreign Host header refused: the proxy serves 127.0.0.1 only")
            supplied = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(supplied.encode(), self.token.encode()):
                return error(401, "missing or wrong proxy token (Authorization: Bearer <token printed at start>)")
            return await call_next(request)

        @app.get("/v1/models")
        def models() -> dict[str, Any]:
            return {"object": "list", "data": [{"id": name, "object": "model", "owned_by": "ratchet"}
                                               for name in sorted(self.project.config.tiers)]}

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            try:
                body = await request.json()
            except RecursionError:
                return error(400, "the body is nested too deeply to parse")
            except ValueError:
                return error(400, "the body is not JSON")
            if not isinstance(body, dict):
                return error(400, "the body must be a JSON object")
            # The gateway blocks (HTTP upstream, SQLite): run it off the event loop.
            result: JSONResponse = await run_in_threadpool(handle, body, request.headers)
            return result

        def handle(body: dict[str, Any], headers: Any) -> JSONResponse:
            if not isinstance(body.get("model") or "", str):
                return error(400, f"model: must be a string naming a tier, not {_kind(body['model'])}")
            model = body.get("model") or ""
            tier = self.tier_for(model)
            if tier is None:
                return error(404, f"unknown upstream {model!r}: name a tier ({', '.join(sorted(self.project.config.tiers))})")
            run_id = headers.get("x-ratchet-run") or self.run_id
            if not _SAFE_ID.fullmatch(run_id):
                return error(400, f"X-Ratchet-Run must match {_SAFE_ID.pattern}")
            purpose = headers.get("x-ratchet-purpose") or "capture"
            try:
                chat_request = chat_request_from_openai(body)
            except ValueError as exc:
                return error(400, " ".join(str(exc).split())[:300])
            try:
                response = self.gateway(run_id).model(tier, purpose).complete(chat_request)
            except BudgetError as exc:
                return error(402, exc.one_line())
            except (ConfigError, InputError) as exc:
                return error(400, exc.one_line())
            except ModelCallError as exc:
                return error(502, exc.one_line())
            task_id = headers.get("x-ratchet-task") or None
            if task_id is not None and not _SAFE_ID.fullmatch(task_id):
                return error(400, f"X-Ratchet-Task must match {_SAFE_ID.pattern}")
            self._record(run_id, task_id, tier, purpose, chat_request, response)
            return JSONResponse(openai_from_response(response, model), headers={
                "x-ratchet-cost-usd": f"{response.usage.usd:.10f}",
                "x-ratchet-cache-hit": "true" if response.cache_hit else "false"})

        return app


def trace_from_capture(path: Path, *, task_id: str, frozen_time: str, seed: int = 0) -> Trace:
    """A Trace from a capture file: model calls in order; tool calls and results from the last
    request's history. The proxy cannot know a tool's effect, so every captured tool call is
    marked `write` (fail closed: a new one is flagged) until a reviewer says otherwise."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not records:
        raise InputError("capture is empty", path=path)
    calls = [ModelCall.of(index=i, tier=r["tier"], model=r["response"]["model"], purpose=r["purpose"],
                          request_digest=r["response"]["request_digest"],
                          usage=Usage.model_validate(r["response"]["usage"]), latency_ms=r["response"]["latency_ms"],
                          cache_hit=r["response"]["cache_hit"], finish_reason=r["response"]["finish_reason"])
             for i, r in enumerate(records)]
    last = ChatRequest.model_validate(records[-1]["request"])
    results = {m.tool_call_id: m.content for m in last.messages if m.role == "tool"}
    asked = [c for m in last.messages if m.role == "assistant" for c in m.tool_calls]
    tools = [ToolCall(index=i, name=c.name, arguments=c.arguments, effect="write", result=results.get(c.id))
             for i, c in enumerate(asked)]
    simulated = any(r["response"]["simulated"] for r in records)
    prompt = next((m.content or "" for m in last.messages if m.role == "user"), "")
    final = ChatResponse.model_validate(records[-1]["response"]).message.content or ""
    return Trace(task_id=task_id, prompt=prompt, upstream="sim" if simulated else "live", simulated=simulated, seed=seed,
                 frozen_time=frozen_time, model_calls=calls, tool_calls=tools, final_output=final,
                 models={r["tier"]: r["response"]["model"] for r in records}).with_totals()


def serve(proxy: CaptureProxy, *, port: int) -> None:
    """Run the proxy in the foreground on 127.0.0.1 until interrupted."""
    import uvicorn

    uvicorn.run(proxy.app, host="127.0.0.1", port=port, log_level="warning", access_log=False, ws="none")

