"""The HTTP surface the capture proxy (proxy.py) and the harness sessions (sessions.py) share.

Both are a model endpoint a harness is pointed at on 127.0.0.1, so both must refuse the same
things the same way: a foreign Host (no DNS rebinding from a browser page) is 403, a missing or
unknown token is 401, a body over the size limit is 413 (from its Content-Length, before any of
it is read; a chunked one as soon as it passes the limit), a body that is not a JSON object is
400, each in the error shape of the API that was called. A client that goes away mid-body is one
logged line, never a traceback. They differ only in who answers (the gateway and its capture files, or a
session's model and its exchange list), so that is all `build_app` is given.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect

from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse
from ratchet.core.errors import BudgetError, ConfigError, InputError, ModelCallError
from ratchet.llm import anthropic_api, chat_api, responses_api
from ratchet.llm.wire import Answer, Asked, Dialect

__all__ = [
    "DEFAULT_MAX_BODY_BYTES",
    "LOOPBACK_NAMES",
    "Refused",
    "build_app",
    "offered_tokens",
    "reply",
    "token_matches",
]

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost"})
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest request body served (16 MiB): a long agent conversation with its tools is a few MiB."""

Handler = Callable[[dict[str, Any], Mapping[str, str]], Response]
"""A request's JSON body and headers to a response; raises Refused for an error reply."""


class Refused(Exception):
    """A request answered with an error status before (or instead of) a model call."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = " ".join(message.split())[:300]


def complete_or_refuse(model: ChatModel, request: ChatRequest) -> ChatResponse:
    """One model call for a wire request; a failure is the status the client understands
    (402 at the budget or cap, 400 for a request Ratchet refuses, 502 for a failed upstream)."""
    try:
        return model.complete(request)
    except BudgetError as exc:
        raise Refused(402, exc.one_line()) from None
    except (ConfigError, InputError) as exc:
        raise Refused(400, exc.one_line()) from None
    except ModelCallError as exc:
        raise Refused(502, exc.one_line()) from None


def offered_tokens(headers: Mapping[str, str]) -> list[str]:
    """The tokens a client offers: `Authorization: Bearer` (OpenAI clients) and `x-api-key` (Anthropic)."""
    offered = [headers.get("authorization", "").removeprefix("Bearer ").strip(), headers.get("x-api-key", "").strip()]
    return [token for token in offered if token]


def token_matches(offered: Sequence[str], token: str) -> bool:
    """Constant-time comparison of every offered token with `token`."""
    return any(hmac.compare_digest(o.encode(), token.encode()) for o in offered)


def dialect_of(path: str) -> Dialect:
    """The API a path belongs to, for the shape of its error replies."""
    if path.startswith("/v1/messages"):
        return anthropic_api.DIALECT
    return responses_api.DIALECT if path.startswith("/v1/responses") else chat_api.DIALECT


def _error(dialect: Dialect, status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(status_code=status, content=dialect.error(status, message), headers=dict(headers or {}))


class _TooLarge(Exception):
    """A request body over the limit; `declared` is its Content-Length when that is what said so."""

    def __init__(self, declared: int | None) -> None:
        super().__init__(declared)
        self.declared = declared


async def _read_body(request: Request, limit: int) -> bytes:
    """The whole body, refused (_TooLarge) before it is read when Content-Length passes `limit`,
    and as soon as a body without one (chunked) does: it is never held past the limit."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise _TooLarge(int(declared))
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _TooLarge(None)
        chunks.append(chunk)
    return b"".join(chunks)


def reply(dialect: Dialect, answer: Answer, asked: Asked, headers: Mapping[str, str]) -> Response:
    """The answer in the dialect's shape: streamed as SSE when the client asked, else one JSON body."""
    if asked.stream:
        return StreamingResponse(
            list(dialect.stream(answer, asked)),
            media_type="text/event-stream",
            headers={**headers, "cache-control": "no-cache"},
        )
    return JSONResponse(dialect.render(answer, asked), headers=dict(headers))


def models_body(names: Sequence[str]) -> dict[str, Any]:
    """`GET /v1/models` in a shape both the OpenAI and the Anthropic clients read."""
    names = sorted(names)
    return {
        "object": "list",
        "has_more": False,
        "first_id": names[0] if names else None,
        "last_id": names[-1] if names else None,
        "data": [
            {
                "id": name,
                "object": "model",
                "type": "model",
                "owned_by": "ratchet",
                "display_name": name,
                "created_at": "1970-01-01T00:00:00Z",
            }
            for name in names
        ],
    }


def build_app(
    title: str,
    *,
    served_by: str,
    authorized: Callable[[Sequence[str]], bool],
    token_hint: str,
    answer: Callable[[Dialect, dict[str, Any], Mapping[str, str]], Response],
    count_tokens: Handler,
    model_names: Callable[[Mapping[str, str]], Sequence[str]],
    log: Callable[[str], None],
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    limit_hint: str = "",
) -> FastAPI:
    """The guarded app: `authorized(offered tokens)` decides 401 (`token_hint` says which token is
    meant), `answer` serves the three chat APIs, `count_tokens` the Anthropic count,
    `model_names(headers)` the model list; `served_by` names the server in the 403, the 413 and the
    line `log` gets when a client goes away mid-body; `limit_hint` (e.g. the flag that sets
    `max_body_bytes`) ends the 413's message."""
    app = FastAPI(title=title, docs_url=None, redoc_url=None, openapi_url=None)
    hint = f" ({limit_hint})" if limit_hint else ""

    def too_large(dialect: Dialect, declared: int | None) -> JSONResponse:
        size = f"is {declared} bytes, " if declared is not None else "is "
        # Connection: close: the rest of the body is never read, so the connection cannot carry another request.
        return _error(
            dialect,
            413,
            f"the body {size}over {served_by}'s limit of {max_body_bytes} bytes{hint}",
            headers={"connection": "close"},
        )

    @app.middleware("http")
    async def guard(request: Request, call_next: Any) -> Any:
        dialect = dialect_of(request.url.path)
        host = (request.headers.get("host") or "").rsplit(":", 1)[0].strip("[]")
        if host not in LOOPBACK_NAMES:
            return _error(dialect, 403, f"foreign Host header refused: {served_by} serves 127.0.0.1 only")
        if not authorized(offered_tokens(request.headers)):
            return _error(dialect, 401, f"missing or wrong {token_hint}")
        return await call_next(request)

    @app.get("/v1/models")
    def models(request: Request) -> dict[str, Any]:
        return models_body(model_names(request.headers))

    def route(path: str, dialect: Dialect, handler: Handler) -> None:
        async def endpoint(request: Request) -> Response:
            try:
                raw = await _read_body(request, max_body_bytes)
            except _TooLarge as exc:
                return too_large(dialect, exc.declared)
            except ClientDisconnect:
                # Nothing to answer and nothing was asked: one line, not an ASGI traceback.
                log(
                    f"ratchet {served_by.removeprefix('the ')}: the client went away before its request body was "
                    f"complete ({request.url.path}); nothing was asked"
                )
                return Response(status_code=400)
            try:
                body = json.loads(raw)
            except RecursionError:
                return _error(dialect, 400, "the body is nested too deeply to parse")
            except ValueError:
                return _error(dialect, 400, "the body is not JSON")
            if not isinstance(body, dict):
                return _error(dialect, 400, "the body must be a JSON object")
            try:
                # The model blocks (HTTP upstream, SQLite, the simulator): run it off the event loop.
                result: Response = await run_in_threadpool(handler, body, request.headers)
            except Refused as refused:
                return _error(dialect, refused.status, refused.message)
            return result

        app.add_api_route(path, endpoint, methods=["POST"])

    def answering(dialect: Dialect) -> Handler:
        return lambda body, headers: answer(dialect, body, headers)

    for dialect, path in (
        (chat_api.DIALECT, "/v1/chat/completions"),
        (responses_api.DIALECT, "/v1/responses"),
        (anthropic_api.DIALECT, "/v1/messages"),
    ):
        route(path, dialect, answering(dialect))
    route("/v1/messages/count_tokens", anthropic_api.DIALECT, count_tokens)
    return app
