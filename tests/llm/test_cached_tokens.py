"""Cached prompt tokens are read from a response wherever the server reports them (the report's prompt-cache share).

OpenAI and litellm's providers say `usage.prompt_tokens_details.cached_tokens`; llama.cpp's llama-server
says `timings.cache_n` (newer builds say both). Through the real client, litellm keeps `timings`."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from ratchet.config.project import TierConfig
from ratchet.core.chat import ChatRequest
from ratchet.llm.live import LiteLLMModel, parse_openai_response
from tests.helpers.fake_openai import ThreadedServer


def _answer(usage: dict[str, Any], timings: dict[str, Any] | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
        "usage": usage,
    }
    if timings is not None:
        data["timings"] = timings
    return data


def test_openai_details_then_llama_server_timings_then_none() -> None:
    details = _answer({"prompt_tokens": 100, "prompt_tokens_details": {"cached_tokens": 64}}, {"cache_n": 70})
    timings = _answer({"prompt_tokens": 100, "prompt_tokens_details": None}, {"prompt_n": 30, "cache_n": 70})
    neither = _answer({"prompt_tokens": 100})
    assert [parse_openai_response(d, "m").usage.tokens_cached for d in (details, timings, neither)] == [64, 70, 0]


def test_a_llama_server_answer_through_the_real_client_keeps_its_cached_tokens() -> None:
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def chat() -> dict[str, Any]:
        return {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": "m",
            **_answer(
                {"prompt_tokens": 100, "completion_tokens": 2, "total_tokens": 102}, {"prompt_n": 30, "cache_n": 70}
            ),
        }

    server = ThreadedServer(app).start()
    try:
        model = LiteLLMModel(TierConfig(model="openai/m", api_base=f"http://127.0.0.1:{server.port}/v1"), timeout_s=10)
        answer = model.complete(ChatRequest.model_validate({"messages": [{"role": "user", "content": "hi"}]}))
        model.close()
    finally:
        server.stop()
    assert (answer.usage.tokens_in, answer.usage.tokens_cached) == (100, 70)
