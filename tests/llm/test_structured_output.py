"""Judges are asked for structured output (json_schema) where the provider takes it, and say so when not.

Against a real local server: the judges' schema goes out as a strict `json_schema` request; a server that
refuses it with a 400 naming the format is asked again without it (and so is every later call), and the
answer says why it is free text (ChatResponse.free_text), fresh or from Ratchet's cache.
"""

from __future__ import annotations

from contextlib import closing
from pathlib import Path

import pytest

from ratchet.config.project import Project, RatchetConfig, TierConfig
from ratchet.core.chat import ChatRequest, Message
from ratchet.gate.opinion import OPINION_SCHEMA, parse_answer
from ratchet.llm.live import REFUSED, LiteLLMModel, _format_refused, _litellm, format_not_taken
from ratchet.llm.retry import UpstreamError
from ratchet.store.db import open_store
from tests.helpers.gateways import sim_gateway
from tests.helpers.judge_server import JudgeServer

JUDGE_FORMAT = {"type": "json_object", "schema": OPINION_SCHEMA}


def judge_request(n: int = 0) -> ChatRequest:
    nonce = f"{n:024x}"
    user = (
        f"<<<BEGIN {nonce} golden_output>>>\nTotal: 10\n<<<END {nonce} golden_output>>>\n"
        f"<<<BEGIN {nonce} replay_output>>>\nTotal: 12\n<<<END {nonce} replay_output>>>"
    )
    return ChatRequest(
        messages=[Message(role="system", content=f"Fence token: {nonce}"), Message(role="user", content=user)],
        response_format=JUDGE_FORMAT,
        max_tokens=200,
    )


def model_for(server: JudgeServer) -> LiteLLMModel:
    return LiteLLMModel(TierConfig(model="openai/judge", api_base=server.base_url), timeout_s=10)


def test_the_schema_is_asked_as_strict_json_schema_where_the_server_takes_it() -> None:
    with JudgeServer() as server:
        model = model_for(server)
        response = model.complete(judge_request())
        model.close()
    assert server.formats == [
        {"type": "json_schema", "json_schema": {"name": "answer", "schema": OPINION_SCHEMA, "strict": True}}
    ]
    assert response.free_text is None
    assert parse_answer(response.message.content).verdict in ("same", "pass", "regression", "unsure")


def test_a_refused_format_is_asked_again_without_it_and_said() -> None:
    with JudgeServer(refuse_format=True) as server:
        model = model_for(server)
        first = model.complete(judge_request(1))
        second = model.complete(judge_request(2))
        model.close()
    # Refused once, asked again without it; the next call goes without it straight away.
    # (json_schema refused, then the judges' own json_object refused too; the next call goes without a format.)
    assert [f["type"] if f else None for f in server.formats] == ["json_schema", "json_object", None, None]
    assert first.free_text == second.free_text == REFUSED
    assert parse_answer(first.message.content).verdict in ("same", "pass", "regression", "unsure")


def test_a_server_that_takes_only_json_object_with_its_schema_gets_it_and_no_note() -> None:
    # llama-cpp-python 0.3.36 answers `json_schema` with a 500 holding a validation error and constrains
    # decoding with the judges' own `json_object` + schema: that is asked next, and the answer is structured.
    with JudgeServer(like_llama_cpp_python=True) as server:
        model = model_for(server)
        first = model.complete(judge_request(6))
        second = model.complete(judge_request(7))
        model.close()
    assert [f["type"] if f else None for f in server.formats] == ["json_schema", "json_object", "json_object"]
    assert server.formats[1] == JUDGE_FORMAT
    assert first.free_text is None and second.free_text is None
    assert parse_answer(first.message.content).verdict in ("same", "pass", "regression", "unsure")


def test_a_400_about_something_else_is_not_asked_again() -> None:
    with JudgeServer(refuse_all=True) as server:
        model = model_for(server)
        with pytest.raises(UpstreamError, match="context length"):
            model.complete(judge_request())
        model.close()
    assert len(server.formats) == 1


def test_a_request_without_a_format_is_not_marked() -> None:
    with JudgeServer(refuse_format=True) as server:
        model = model_for(server)
        response = model.complete(judge_request().model_copy(update={"response_format": None}))
        model.close()
    assert server.formats == [None]
    assert response.free_text is None


def test_litellm_says_which_providers_do_not_take_a_format() -> None:
    litellm = _litellm()
    assert format_not_taken(litellm, "openai/judge") is None
    assert format_not_taken(litellm, "replicate/some-model") == (
        "litellm says replicate/some-model does not take response_format"
    )


def test_the_gateway_keeps_why_through_its_cache(tmp_path: Path) -> None:
    """A replayed answer says it is free text as the first did: the note does not depend on the cache."""
    project = Project(root=tmp_path, config=RatchetConfig(), home=tmp_path / "home")
    with JudgeServer(refuse_format=True) as server, closing(open_store(project.home)) as store:
        for run in ("first", "again"):
            with sim_gateway(project, store, run_id=run, upstream_models={"nano": model_for(server)}) as gateway:
                judge = gateway.model("nano", "judge-nano")
                response = judge.complete(judge_request(3))
                assert (response.free_text, judge.free_text, response.cache_hit) == (REFUSED, REFUSED, run == "again")
    assert (
        len(server.formats) == 3
    )  # the first run: json_schema and json_object refused, then none; the second asked nothing


def test_a_refused_format_without_a_schema_reaches_its_caller() -> None:
    """A harness's own format through the proxy is passed on as given, and so is the server's refusal."""
    with JudgeServer(refuse_format=True) as server:
        model = model_for(server)
        model.complete(judge_request(4))  # a judge's schema refused: remembered for schema requests only
        with pytest.raises(UpstreamError, match="response_format"):
            model.complete(judge_request(5).model_copy(update={"response_format": {"type": "json_object"}}))
        model.close()
    assert server.formats[-1] == {"type": "json_object"}


@pytest.mark.parametrize(
    ("status", "message", "refused"),
    [
        (400, "response_format of type 'json_schema' is not supported by this server", True),
        (400, "Invalid parameter: 'response_format' must be one of 'text', 'json_object'", True),
        (400, 'Either "json_schema" or "grammar" can be specified, but not both', True),
        (400, "this model does not support structured output", True),
        (400, "Invalid schema for function 'lookup': 'type' is required", False),  # a tool's schema
        (400, "request body does not match the schema: messages.0.role", False),
        (400, "context length exceeded: 9999 tokens > 4096", False),
        (500, "response_format crashed the worker", False),
        (500, "1 validation error: ('body', 'response_format', 'type'): Input should be 'text' or 'json_object'", True),
        (422, "response_format.type: unknown variant json_schema", True),
    ],
)
def test_only_a_refusal_naming_the_response_format_is_a_refused_format(
    status: int, message: str, refused: bool
) -> None:
    """Another 400 that says `schema` is the request's own fault: asking again without the format would hide it."""
    assert _format_refused(UpstreamError(message, retryable=False, status=status)) is refused
