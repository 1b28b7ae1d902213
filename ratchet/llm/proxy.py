"""The capture proxy: the model endpoint a harness is pointed at, on 127.0.0.1, over the gateway.

It speaks what harnesses speak (docs/proxy.md): OpenAI Chat Completions (`/v1/chat/completions`),
OpenAI Responses (`/v1/responses`, Codex) and Anthropic Messages (`/v1/messages`, Claude Code),
streaming or not. Each API module translates its body into the one internal ChatRequest, so every
request is priced, capped, cached and ledgered by the same Gateway call, and each exchange is
appended to <home>/captures/<run>/<task>.jsonl, from which `trace_from_capture` builds a Trace.
This module is the per-run token, the model-to-tier map and the capture files; the loopback Host
check, the token guard and the routes are ratchet/llm/endpoint.py, shared with the harness sessions.
Headers: X-Ratchet-Run (default: the proxy's run), X-Ratchet-Purpose (default: capture),
X-Ratchet-Task (when set, the exchange also refreshes pending/<task>.json for `ratchet bless`).
"""

from __future__ import annotations

import re
import secrets
import sys
import threading
from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response

from ratchet.config.project import Project
from ratchet.core.chat import ChatRequest, ChatResponse
from ratchet.core.errors import ConfigError
from ratchet.goldens.trace import write_trace
from ratchet.llm import anthropic_api
from ratchet.llm.body_checks import BadBody, kind
from ratchet.llm.capture import capture_line, trace_from_capture
from ratchet.llm.endpoint import (
    DEFAULT_MAX_BODY_BYTES,
    Refused,
    build_app,
    complete_or_refuse,
    reply,
    token_matches,
)
from ratchet.llm.gateway import Gateway
from ratchet.llm.wire import Dialect, shown_answer
from ratchet.store.db import Store

__all__ = ["CaptureProxy", "parse_alias", "serve", "trace_from_capture"]

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")


def parse_alias(spec: str) -> tuple[str, str]:
    """`NAME=TIER` (NAME may be a glob such as `claude-*`) as (name, tier); ConfigError otherwise."""
    name, sep, tier = spec.partition("=")
    if not sep or not name.strip() or not tier.strip():
        raise ConfigError(f"--model-alias {spec!r}: write NAME=TIER, e.g. --model-alias claude-sonnet-4-5=agent")
    return name.strip(), tier.strip()


class CaptureProxy:
    """The proxy app plus its gateways (one per run header) and capture files."""

    def __init__(
        self,
        project: Project,
        store: Store,
        *,
        run_id: str,
        token: str | None = None,
        cache_mode: str = "once",
        budget_usd: float | None = None,
        gateway_options: dict[str, Any] | None = None,
        model_aliases: Mapping[str, str] | None = None,
        log: Callable[[str], None] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        """`model_aliases` maps a harness's model names (or globs) to tiers; `log` receives one line per
        refused model or client gone mid-body (default: stderr); a request body over `max_body_bytes` is 413."""
        self.project = project
        self.store = store
        self.run_id = run_id
        self.token = token or secrets.token_urlsafe(24)
        self.cache_mode = cache_mode
        self.budget_usd = budget_usd
        self.gateway_options = gateway_options or {}
        self.model_aliases = dict(model_aliases or {})
        self.log = log or _stderr
        self.max_body_bytes = max_body_bytes
        tiers = project.config.tiers
        for name, tier in self.model_aliases.items():
            if tier not in tiers:
                raise ConfigError(
                    f"--model-alias {name}={tier}: {tier!r} is not a configured tier ({', '.join(sorted(tiers))})"
                )
        self._gateways: dict[str, Gateway] = {}
        self._lock = threading.Lock()
        self.gateway(run_id)  # validate config now, not at the first request
        self.app = self._build()

    def gateway(self, run_id: str) -> Gateway:
        with self._lock:
            gw = self._gateways.get(run_id)
            if gw is None:
                gw = Gateway(
                    self.project,
                    self.store,
                    run_id=run_id,
                    cache_mode=self.cache_mode,
                    budget_usd=self.budget_usd,
                    **self.gateway_options,
                )
                self._gateways[run_id] = gw
            return gw

    def preflight(self) -> None:
        """Before serving: the tiers a harness will reach (the agent, and every tier an alias names) exist
        and, live, answer and serve their models; one line and exit 3 otherwise, not a 502 per request."""
        self.gateway(self.run_id).preflight(["agent", *self.model_aliases.values()])

    def close(self) -> None:
        with self._lock:
            for gw in self._gateways.values():
                gw.close()

    def tier_for(self, model: str) -> str | None:
        """The tier a model name means: a tier's name, a tier's configured model id, an exact
        alias, then the first glob alias that matches (in the order given)."""
        tiers = self.project.config.tiers
        if model in tiers:
            return model
        configured = next((name for name, t in sorted(tiers.items()) if t.model == model), None)
        if configured is not None:
            return configured
        if model in self.model_aliases:
            return self.model_aliases[model]
        return next((tier for name, tier in self.model_aliases.items() if fnmatchcase(model, name)), None)

    def capture_path(self, run_id: str, task_id: str | None = None) -> Path:
        return self.project.home / "captures" / run_id / f"{task_id or '_untasked'}.jsonl"

    def _record(
        self,
        api: str,
        run_id: str,
        task_id: str | None,
        tier: str,
        purpose: str,
        request: ChatRequest,
        response: ChatResponse,
    ) -> None:
        line = capture_line(api=api, tier=tier, purpose=purpose, request=request, response=response)
        path = self.capture_path(run_id, task_id)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line + "\n")
            if task_id:
                trace = trace_from_capture(path, task_id=task_id, frozen_time=self.project.config.clock)
                write_trace(self.project.pending_dir / f"{task_id}.json", trace)

    def _tier(self, dialect: Dialect, body: dict[str, Any], run_id: str) -> tuple[str, str]:
        model = body.get("model") or ""
        if not isinstance(model, str):
            raise Refused(400, f"model: must be a string naming a tier, not {kind(model)}")
        tier = self.tier_for(model)
        if tier is None:
            self.log(
                f"ratchet proxy: refused {dialect.name} request for model {model[:100]!r} (run {run_id}): "
                "not a tier, a tier's model id or a --model-alias"
            )
            raise Refused(
                404,
                f"unknown upstream {model!r}: name a tier ({', '.join(sorted(self.project.config.tiers))})"
                f" or a tier's model id, or map it with `ratchet proxy --model-alias {model}=<tier>`",
            )
        return model, tier

    def _answer(self, dialect: Dialect, body: dict[str, Any], headers: Mapping[str, str]) -> Response:
        """One request through the gateway; refusals are raised as Refused before any model call."""
        run_id = headers.get("x-ratchet-run") or self.run_id
        if not _SAFE_ID.fullmatch(run_id):
            raise Refused(400, f"X-Ratchet-Run must match {_SAFE_ID.pattern}")
        task_id = headers.get("x-ratchet-task") or None
        if task_id is not None and not _SAFE_ID.fullmatch(task_id):
            raise Refused(400, f"X-Ratchet-Task must match {_SAFE_ID.pattern}")
        purpose = headers.get("x-ratchet-purpose") or "capture"
        _, tier = self._tier(dialect, body, run_id)
        try:
            asked = dialect.parse(body)
        except ValueError as exc:
            raise Refused(400, str(exc)) from None
        response = complete_or_refuse(self.gateway(run_id).model(tier, purpose), asked.request)
        answer = shown_answer(response, asked, id_prefix=dialect.id_prefix)
        self._record(dialect.name, run_id, task_id, tier, purpose, asked.request, answer.response)
        meta = {
            "x-ratchet-cost-usd": f"{response.usage.usd:.10f}",
            "x-ratchet-cache-hit": "true" if response.cache_hit else "false",
            "x-ratchet-tier": tier,
        }
        return reply(dialect, answer, asked, meta)

    def _count_tokens(self, body: dict[str, Any], headers: Mapping[str, str]) -> Response:
        self._tier(anthropic_api.DIALECT, body, headers.get("x-ratchet-run") or self.run_id)
        try:
            return JSONResponse(anthropic_api.count_tokens(body))
        except BadBody as exc:
            raise Refused(400, str(exc)) from None

    def _build(self) -> FastAPI:
        return build_app(
            "ratchet capture proxy",
            served_by="the proxy",
            authorized=lambda offered: token_matches(offered, self.token),
            token_hint="proxy token (Authorization: Bearer <token> or x-api-key: <token>, the token printed at start)",
            answer=self._answer,
            count_tokens=self._count_tokens,
            model_names=lambda headers: list(self.project.config.tiers),
            log=self.log,
            max_body_bytes=self.max_body_bytes,
            limit_hint="ratchet proxy --max-body-mib",
        )


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def serve(proxy: CaptureProxy, *, port: int) -> None:
    """Run the proxy in the foreground on 127.0.0.1 until interrupted."""
    import uvicorn

    uvicorn.run(proxy.app, host="127.0.0.1", port=port, log_level="warning", access_log=False, ws="none")
