"""A real OpenAI-compatible judge on 127.0.0.1: it answers as the simulated judge would, over HTTP.

    with JudgeServer(tier="nano", refuse_format=True) as server:
        ... TierConfig(model="openai/judge", api_base=server.base_url) ...
        server.formats       # the response_format of every request that reached it (None: none sent)

`refuse_format`: a request with a response_format gets a 400 naming it, as a server that cannot
constrain its output answers; `refuse_all`: every request gets a 400 about something else;
`like_llama_cpp_python`: a `json_schema` format gets the 500 holding a validation error that
llama-cpp-python 0.3.36 answers with, and `json_object` with a schema is taken.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from ratchet.llm.chat_api import chat_request_from_openai
from ratchet.sim.judges import SimJudge
from tests.helpers.fake_openai import ThreadedServer


class JudgeServer:
    def __init__(
        self,
        *,
        tier: str = "nano",
        refuse_format: bool = False,
        refuse_all: bool = False,
        like_llama_cpp_python: bool = False,
    ) -> None:
        self.judge = SimJudge(tier)
        self.like_llama_cpp_python = like_llama_cpp_python
        self.refuse_format = refuse_format
        self.refuse_all = refuse_all
        self.formats: list[dict[str, Any] | None] = []
        self._lock = threading.Lock()
        self._runner: ThreadedServer | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _app(self) -> FastAPI:
        app = FastAPI()

        @app.post("/v1/chat/completions")
        async def chat(request: Request) -> JSONResponse:
            body = await request.json()
            with self._lock:
                self.formats.append(body.get("response_format"))
            if self.refuse_all:
                return _error("context length exceeded: 9999 tokens > 4096")
            if self.refuse_format and body.get("response_format") is not None:
                return _error("response_format of type 'json_schema' is not supported by this server")
            if self.like_llama_cpp_python and (body.get("response_format") or {}).get("type") == "json_schema":
                return JSONResponse(
                    status_code=500,
                    content={
                        "error": {
                            "message": "1 validation error: {'type': 'literal_error', 'loc': ('body', "
                            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                            "'input': 'json_schema'}",
                            "type": "internal_server_error",
                        }
                    },
                )
            content = json.dumps(self.judge.opinion(chat_request_from_openai(body)), sort_keys=True)
            return JSONResponse(
                {
                    "id": "judge-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body.get("model", "judge"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                }
            )

        return app

    def __enter__(self) -> JudgeServer:
        self._runner = ThreadedServer(self._app()).start()
        self.port = self._runner.port
        return self

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            self._runner.stop()


def _error(message: str) -> JSONResponse:
    return JSONResponse(status_code=400, content={"error": {"message": message, "type": "invalid_request_error"}})
