"""A real OpenAI-compatible chat server on 127.0.0.1, run in-process in a thread (uvicorn).

Reusable by any test that needs a live upstream without the internet:

    with FakeOpenAI() as server:
        server.script("ok", 429, "ok")      # per-request behaviours, then "ok" forever
        ... api_base=server.base_url ...
        server.requests                      # what reached the server
        server.probes                        # GET /models (a preflight) answered

Behaviours: "ok" (answer), an int (that HTTP status, with an OpenAI-style error body that
echoes the Authorization header it got, the worst case for key hygiene), ("sleep", s)
(answer after s seconds: a timeout for a short client timeout), ("tool", name, args).
Usage is deterministic: prompt tokens = characters of the messages JSON // 4,
completion tokens = min(max_tokens, reply_tokens).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import deque
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

Behaviour = str | int | tuple[Any, ...]


class ThreadedServer:
    """Any ASGI app served by uvicorn on 127.0.0.1 (a free port) in a daemon thread."""

    def __init__(self, app: Any) -> None:
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=0,
            log_level="error",
            lifespan="off",
            ws="none",
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="test-http-server", daemon=True)
        self.port = 0

    def start(self) -> ThreadedServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("test HTTP server did not start")
            time.sleep(0.01)
        self.port = self.server.servers[0].sockets[0].getsockname()[1]
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> ThreadedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class FakeOpenAI:
    """A tiny chat-completions server with scripted behaviours and a record of every request."""

    def __init__(
        self,
        *,
        reply_tokens: int = 7,
        delay_s: float = 0.0,
        model: str = "fake-model",
        listed: tuple[str, ...] | None = None,
        models_key: str | None = None,
    ) -> None:
        """`listed`: the model ids GET /v1/models lists (default: `model`); `models_key`: when set,
        GET /v1/models answers 401 unless it is sent as the bearer token, as hosted providers do."""
        self.reply_tokens = reply_tokens
        self.delay_s = delay_s
        self.model = model
        self.listed = listed if listed is not None else (model,)
        self.models_key = models_key
        self.requests: list[dict[str, Any]] = []
        self.probes = 0  # GET /models: a preflight's "is it up, does it serve the model", not a model call
        self.probe_auth: list[str] = []  # the Authorization header of each GET /models
        self.responses: list[dict[str, Any]] = []
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self.app = self._build()
        self._runner: ThreadedServer | None = None
        self.port = 0

    # scripting ------------------------------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> FakeOpenAI:
        with self._lock:
            self._script.extend(behaviours)
        return self

    def _next(self) -> Behaviour:
        with self._lock:
            return self._script.popleft() if self._script else "ok"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # server ---------------------------------------------------------------------------------

    def _build(self) -> FastAPI:
        app = FastAPI()

        @app.get("/v1/models")
        async def models(request: Request) -> JSONResponse:
            auth = request.headers.get("authorization", "")
            with self._lock:
                self.probes += 1
                self.probe_auth.append(auth)
            if self.models_key is not None and auth != f"Bearer {self.models_key}":
                return JSONResponse(status_code=401, content={"error": {"message": "no key", "type": "fake"}})
            data = [{"id": model, "object": "model", "owned_by": "fake"} for model in self.listed]
            return JSONResponse({"object": "list", "data": data})

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            auth = request.headers.get("authorization", "")
            with self._lock:
                self.requests.append({"body": body, "authorization": auth, "ts": time.time()})
            behaviour = self._next()
            if self.delay_s:
                await asyncio.sleep(self.delay_s)
            if isinstance(behaviour, int):
                return JSONResponse(
                    status_code=behaviour,
                    content={
                        "error": {
                            "message": f"scripted {behaviour}; you sent {auth}",
                            "type": "fake",
                            "code": behaviour,
                        }
                    },
                )
            if isinstance(behaviour, tuple) and behaviour[0] == "sleep":
                await asyncio.sleep(float(behaviour[1]))
            return JSONResponse(self._answer(body, behaviour))

        return app

    def _answer(self, body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
        messages = body.get("messages") or []
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "") or ""
        prompt_tokens = max(1, len(json.dumps(messages)) // 4)
        completion_tokens = min(int(body.get("max_tokens") or 1024), self.reply_tokens)
        message: dict[str, Any] = {"role": "assistant", "content": f"echo: {last}"}
        finish = "stop"
        if isinstance(behaviour, tuple) and behaviour[0] == "tool":
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": behaviour[1], "arguments": json.dumps(behaviour[2])},
                    }
                ],
            }
            finish = "tool_calls"
        data = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        with self._lock:
            self.responses.append(data)
        return data

    def start(self) -> FakeOpenAI:
        self._runner = ThreadedServer(self.app).start()
        self.port = self._runner.port
        return self

    def stop(self) -> None:
        if self._runner is not None:
            self._runner.stop()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def usage_seen(self) -> tuple[int, int]:
        """Prompt and completion tokens of every answered request."""
        with self._lock:
            return (
                sum(r["usage"]["prompt_tokens"] for r in self.responses),
                sum(r["usage"]["completion_tokens"] for r in self.responses),
            )
