"""Harness sessions: one loopback model endpoint, shared by a check, with one session per replay.

A replay through Claude Code or Codex points the harness at this endpoint with the session's
token. The order of operations for each request, and why:

1. the guard (ratchet/llm/endpoint.py, shared with the capture proxy): loopback Host, a live
   session's token (the token picks the session, so concurrent replays never mix);
2. the model name must be one the session accepts, else 404 and one logged line, before any
   model call: a harness asking for an unexpected model is a fault to see, not to answer;
3. the session's rewrites, applied to every string of the JSON body before it is parsed, so
   what varies between runs and never matters (the scratch root, the real date, the OS version,
   Codex's chunk ids) reaches neither the model nor the cache key;
4. the dialect parses the body; the model answers; `shown_answer` applies stop sequences and ids;
5. the exchange (what the model was asked, what it answered) is appended, before restores, so
   a trace built from it is the same whatever scratch root the replay ran in;
6. the restores put the real values back into the answer (text and tool-call arguments), so the
   harness reads real paths; then the dialect renders or streams it.
"""

from __future__ import annotations

import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any

import uvicorn
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, ToolCallRequest
from ratchet.core.errors import InfraError
from ratchet.llm import anthropic_api
from ratchet.llm.body_checks import BadBody
from ratchet.llm.cache import cache_key
from ratchet.llm.endpoint import (
    Refused,
    build_app,
    complete_or_refuse,
    offered_tokens,
    reply,
    token_matches,
)
from ratchet.llm.wire import Answer, ApiName, Asked, Dialect, shown_answer

__all__ = ["Exchange", "Rewrite", "Session", "SessionEndpoint", "SessionSpec"]

START_TIMEOUT_S = 10.0


class Rewrite(BaseModel):
    """One normalisation of a harness's request: `re.sub(pattern, replacement, s)` on every string."""

    model_config = ConfigDict(frozen=True)

    pattern: str = Field(description="A Python regular expression.")
    replacement: str = Field(description="Its replacement (re.sub syntax: \\1 refers to a group).")


class SessionSpec(BaseModel):
    """What one session accepts and how it normalises: fixed when the session opens."""

    model_config = ConfigDict(frozen=True)

    tier: str = Field(default="agent", description="The tier the session's model plays (x-ratchet-tier).")
    models: list[str] = Field(
        default_factory=lambda: ["agent"], description="Model names the harness may ask for; any other is refused 404."
    )
    rewrites: list[Rewrite] = Field(default_factory=list, description="Applied in order to every request string.")
    restores: dict[str, str] = Field(
        default_factory=dict, description="placeholder -> real value, replaced in every answer string."
    )
    seed: int = Field(
        default=0,
        description="The request's seed when the wire body has none (the Anthropic and "
        "Responses APIs have no seed field): a replay's seed, from its task id.",
    )
    required_tool_prefix: str | None = Field(
        default=None,
        description="A request that offers no tool named with this prefix is refused 503 before any "
        "model call (400, counted in `not_ready`): the harness asked before its MCP server was connected.",
    )


class Exchange(BaseModel):
    """One request a harness made and what it was answered, as the model saw both."""

    api: ApiName
    request: ChatRequest = Field(description="What the model was asked, after the rewrites.")
    response: ChatResponse = Field(description="The answer as shown (stop sequences, ids), before the restores.")


class Session:
    """One replay's share of the endpoint: its token, its model, the exchanges and refusals so far."""

    def __init__(self, spec: SessionSpec, model: ChatModel, token: str) -> None:
        self.spec = spec
        self.model = model
        self.token = token
        self.exchanges: list[Exchange] = []
        self.refused: list[str] = []
        self.not_ready = 0
        self._lock = threading.Lock()

    @cached_property
    def _rewrites(self) -> list[tuple[re.Pattern[str], str]]:
        return [(re.compile(r.pattern), r.replacement) for r in self.spec.rewrites]

    def rewrite(self, value: Any) -> Any:
        """`value` (parsed JSON) with the rewrites applied to every string in it (keys left alone)."""
        return _map_strings(value, self._rewrite_text)

    def _rewrite_text(self, text: str) -> str:
        for pattern, replacement in self._rewrites:
            text = pattern.sub(replacement, text)
        return text

    def restore(self, answer: Answer) -> Answer:
        """The answer with every placeholder of `spec.restores` replaced, in its text and in every
        string inside its tool-call arguments."""
        if not self.spec.restores:
            return answer
        message = answer.response.message
        calls = [
            ToolCallRequest(id=c.id, name=c.name, arguments=_map_strings(c.arguments, self._restore_text))
            for c in message.tool_calls
        ]
        content = None if message.content is None else self._restore_text(message.content)
        shown = message.model_copy(update={"content": content, "tool_calls": calls})
        return answer.model_copy(update={"response": answer.response.model_copy(update={"message": shown})})

    def _restore_text(self, text: str) -> str:
        for placeholder, real in self.spec.restores.items():
            text = text.replace(placeholder, real)
        return text

    def record(self, exchange: Exchange) -> None:
        with self._lock:
            self.exchanges.append(exchange)

    def refuse(self, model: str) -> None:
        with self._lock:
            self.refused.append(model)


def _map_strings(value: Any, change: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return change(value)
    if isinstance(value, dict):
        return {key: _map_strings(item, change) for key, item in value.items()}
    if isinstance(value, list):
        return [_map_strings(item, change) for item in value]
    return value


class SessionEndpoint:
    """The loopback server: started once, then sessions open and close on it, one per replay."""

    def __init__(self, log: Callable[[str], None] | None = None) -> None:
        """`log` receives one line per refused model or client gone mid-body (default: stderr)."""
        self.log = log or _stderr
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port = 0
        self.app = build_app(
            "ratchet harness sessions",
            served_by="the session endpoint",
            authorized=lambda o: self._find(o) is not None,
            token_hint="session token (Authorization: Bearer <token> or x-api-key: <token>, the replay's token)",
            answer=self._answer,
            count_tokens=self._count_tokens,
            model_names=self._model_names,
            log=self.log,
        )

    # lifecycle -------------------------------------------------------------------------------

    def start(self) -> SessionEndpoint:
        """Bind 127.0.0.1 on a free port in a daemon thread; return once it accepts connections."""
        if self._server is not None:
            return self
        config = uvicorn.Config(
            self.app,
            host="127.0.0.1",
            port=0,
            log_level="error",
            lifespan="off",
            ws="none",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(target=server.run, name="ratchet-session-endpoint", daemon=True)
        thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                server.should_exit = True
                raise InfraError(
                    "the harness session endpoint did not start on 127.0.0.1 within "
                    f"{START_TIMEOUT_S:g} s: is the loopback interface up?"
                )
            time.sleep(0.005)
        self._port = server.servers[0].sockets[0].getsockname()[1]
        self._server, self._thread = server, thread
        return self

    def stop(self) -> None:
        """Stop serving and forget every session."""
        server, thread = self._server, self._thread
        self._server = self._thread = None
        with self._lock:
            self._sessions.clear()
        if server is not None and thread is not None:
            server.should_exit = True
            thread.join(timeout=10)

    def __enter__(self) -> SessionEndpoint:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`, without `/v1` (Claude Code adds it; give Codex `base_url + "/v1"`)."""
        if self._server is None:
            raise InfraError("the harness session endpoint is not started (call start() first)")
        return f"http://127.0.0.1:{self._port}"

    def open(self, spec: SessionSpec, model: ChatModel) -> Session:
        """A new session answered by `model`, with a fresh token."""
        session = Session(spec, model, "rs" + secrets.token_hex(24))  # never starts with "-": it goes on command lines
        with self._lock:
            self._sessions[session.token] = session
        return session

    def close(self, session: Session) -> None:
        """End the session's token: its later requests are 401. Its exchanges stay readable."""
        with self._lock:
            self._sessions.pop(session.token, None)

    # serving ---------------------------------------------------------------------------------

    def _find(self, offered: Sequence[str]) -> Session | None:
        with self._lock:
            sessions = list(self._sessions.values())
        return next((s for s in sessions if token_matches(offered, s.token)), None)

    def _session(self, headers: Mapping[str, str]) -> Session:
        session = self._find(offered_tokens(headers))
        if session is None:  # closed between the guard and the handler
            raise Refused(401, "missing or wrong session token: the session is closed")
        return session

    def _model_names(self, headers: Mapping[str, str]) -> list[str]:
        return list(self._session(headers).spec.models)

    def _check_model(self, session: Session, dialect: Dialect, body: dict[str, Any]) -> None:
        model = body.get("model")
        if isinstance(model, str) and model in session.spec.models:
            return
        shown = model[:100] if isinstance(model, str) else str(model)[:100]
        session.refuse(shown)
        self.log(
            f"ratchet harness session: refused {dialect.name} request for model {shown!r}: "
            f"this session serves {', '.join(session.spec.models)}"
        )
        raise Refused(404, f"unknown model {shown!r}: this session serves {', '.join(session.spec.models)}")

    def _answer(self, dialect: Dialect, body: dict[str, Any], headers: Mapping[str, str]) -> Response:
        session = self._session(headers)
        self._check_model(session, dialect, body)
        rewritten = session.rewrite(body)
        try:
            asked = dialect.parse(rewritten)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        asked = _seeded(asked, session.spec.seed, wire_seed="seed" in rewritten)
        prefix = session.spec.required_tool_prefix
        if prefix is not None and not any(tool.name.startswith(prefix) for tool in asked.request.tools):
            with session._lock:
                session.not_ready += 1
            # 400, not 503: a client retrying would send the same tool list; the runner restarts the replay.
            raise Refused(400, f"no {prefix}* tool in this request: the MCP server is not connected yet")
        response = complete_or_refuse(session.model, asked.request)
        if not response.request_digest:  # a raw model: ids still come from the request, never a counter
            response = response.model_copy(
                update={"request_digest": cache_key(session.model.model_id, None, asked.request)}
            )
        answer = shown_answer(response, asked, id_prefix=dialect.id_prefix)
        session.record(Exchange(api=dialect.name, request=asked.request, response=answer.response))
        meta = {
            "x-ratchet-tier": session.spec.tier,
            "x-ratchet-cost-usd": f"{response.usage.usd:.10f}",
            "x-ratchet-cache-hit": "true" if response.cache_hit else "false",
        }
        return reply(dialect, session.restore(answer), asked, meta)

    def _count_tokens(self, body: dict[str, Any], headers: Mapping[str, str]) -> Response:
        session = self._session(headers)
        self._check_model(session, anthropic_api.DIALECT, body)
        try:
            return JSONResponse(anthropic_api.count_tokens(session.rewrite(body)))
        except BadBody as exc:
            raise Refused(400, str(exc)) from None


def _seeded(asked: Asked, seed: int, *, wire_seed: bool) -> Asked:
    if wire_seed or asked.request.seed == seed:
        return asked
    return asked.model_copy(update={"request": asked.request.model_copy(update={"seed": seed})})


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
