"""Malformed chat bodies get HTTP 400 and a one-line JSON error from the real proxy app, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ratchet.llm.proxy import CaptureProxy
from ratchet.sim.models import SIMULATOR
from tests.helpers.fake_openai import FakeOpenAI, ThreadedServer
from tests.llm.live_fixtures import KEY_ENV, SENTINEL, live_project

USER = {"role": "user", "content": "hi"}


def body(**fields: Any) -> dict[str, Any]:
    return {"model": "nano", "messages": [USER], "max_tokens": 20, **fields}


def deep(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


def tool(function: Any) -> dict[str, Any]:
    return {"type": "function", "function": function}


def assistant_calls(calls: Any) -> dict[str, Any]:
    return body(messages=[USER, {"role": "assistant", "content": None, "tool_calls": calls}])


BAD_BODIES: dict[str, tuple[Any, str]] = {
    "messages is a string": (body(messages="hi"), "messages"),
    "messages is an object": (body(messages={"role": "user", "content": "hi"}), "messages"),
    "messages is missing": ({"model": "nano"}, "messages"),
    "messages is empty": (body(messages=[]), "messages"),
    "a message is a string": (body(messages=["hi"]), "messages[0]"),
    "a message is null": (body(messages=[USER, None]), "messages[1]"),
    "unknown role": (body(messages=[{"role": "wizard", "content": "hi"}]), "messages[0].role"),
    "role missing": (body(messages=[{"content": "hi"}]), "messages[0].role"),
    "content is a number": (body(messages=[{"role": "user", "content": 5}]), "messages[0].content"),
    "content part is a string": (body(messages=[{"role": "user", "content": ["hi"]}]), "messages[0].content[0]"),
    "content part text is a number": (
        body(messages=[{"role": "user", "content": [{"type": "text", "text": 1}]}]),
        "messages[0].content[0].text",
    ),
    "name is a number": (body(messages=[{"role": "user", "content": "hi", "name": 5}]), "messages[0].name"),
    "tool_call_id is a list": (
        body(messages=[USER, {"role": "tool", "content": "1", "tool_call_id": [1]}]),
        "messages[1].tool_call_id",
    ),
    "tool_calls is a string": (assistant_calls("call"), "messages[1].tool_calls"),
    "a tool call is a number": (assistant_calls([5]), "messages[1].tool_calls[0]"),
    "a tool call's function is a string": (
        assistant_calls([{"id": "c", "function": "f"}]),
        "messages[1].tool_calls[0].function",
    ),
    "a tool call's arguments are a number": (
        assistant_calls([{"id": "c", "function": {"name": "f", "arguments": 5}}]),
        "messages[1].tool_calls[0].function.arguments",
    ),
    "tools is an object": (body(tools={"name": "f"}), "tools"),
    "a tool is a string": (body(tools=["f"]), "tools[0]"),
    "a tool's function is a string": (body(tools=[tool("f")]), "tools[0].function"),
    "a tool's name is a number": (body(tools=[tool({"name": 5})]), "tools[0].function.name"),
    "a tool's name is missing": (body(tools=[tool({"description": "d"})]), "tools[0].function.name"),
    "a tool's parameters are a list": (
        body(tools=[tool({"name": "f", "parameters": [1]})]),
        "tools[0].function.parameters",
    ),
    "max_tokens is a string": (body(max_tokens="20"), "max_tokens"),
    "max_tokens is a float": (body(max_tokens=1.5), "max_tokens"),
    "max_tokens is a boolean": (body(max_tokens=True), "max_tokens"),
    "max_tokens is negative": (body(max_tokens=-5), "max_tokens"),
    "max_tokens is zero": (body(max_tokens=0), "max_tokens"),
    "max_tokens is huge": (body(max_tokens=10**30), "max_tokens"),
    "max_completion_tokens is negative": (body(max_tokens=None, max_completion_tokens=-1), "max_completion_tokens"),
    "temperature is a string": (body(temperature="hot"), "temperature"),
    "temperature is negative": (body(temperature=-1), "temperature"),
    "seed is a string": (body(seed="s"), "seed"),
    "seed is huge": (body(seed=10**40), "seed"),
    "tool_choice is a number": (body(tool_choice=5), "tool_choice"),
    "response_format is a string": (body(response_format="json"), "response_format"),
    "model is a list": (body(model=["nano"]), "model"),
    "stream is a string": (body(stream="yes"), "stream"),
    "deeply nested parameters": (body(tools=[tool({"name": "f", "parameters": deep(200)})]), "nested"),
    "deeply nested response_format": (body(response_format=deep(200)), "nested"),
}

RAW_BODIES: dict[str, tuple[str, str]] = {
    "NaN temperature": (
        '{"model": "nano", "messages": [{"role": "user", "content": "hi"}], "temperature": NaN}',
        "temperature",
    ),
    "Infinity max_tokens": (
        '{"model": "nano", "messages": [{"role": "user", "content": "hi"}], "max_tokens": Infinity}',
        "max_tokens",
    ),
    "nesting deeper than the JSON parser": (
        '{"model": "nano", "messages": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "nested",
    ),
}


@pytest.fixture(scope="module")
def proxy_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeOpenAI]]:
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, SENTINEL)
    tmp = tmp_path_factory.mktemp("bad-bodies")
    try:
        with FakeOpenAI() as upstream:
            project = live_project(Path(tmp), upstream)
            from ratchet.store.db import open_store

            store = open_store(project.home)
            proxy = CaptureProxy(project, store, run_id="bad", token="tok", gateway_options={"simulator": SIMULATOR})
            with ThreadedServer(proxy.app) as server:
                yield f"http://127.0.0.1:{server.port}/v1/chat/completions", upstream
            proxy.close()
            store.close()
    finally:
        mp.undo()


def _assert_one_line_400(response: httpx.Response, where: str) -> None:
    assert response.status_code == 400, (response.status_code, response.text[:500])
    error = response.json()["error"]
    assert error["type"] == "ratchet"
    message = error["message"]
    assert isinstance(message, str) and "\n" not in message and 0 < len(message) <= 300, message
    assert where in message, message


@pytest.mark.parametrize("name", sorted(BAD_BODIES))
def test_malformed_body_is_400_with_one_line(name: str, proxy_url: tuple[str, FakeOpenAI]) -> None:
    url, upstream = proxy_url
    payload, where = BAD_BODIES[name]
    before = len(upstream.requests)
    response = httpx.post(url, json=payload, headers={"authorization": "Bearer tok"}, timeout=30)
    _assert_one_line_400(response, where)
    assert len(upstream.requests) == before, "a malformed body reached the upstream"


@pytest.mark.parametrize("name", sorted(RAW_BODIES))
def test_malformed_raw_json_is_400_with_one_line(name: str, proxy_url: tuple[str, FakeOpenAI]) -> None:
    url, upstream = proxy_url
    raw, where = RAW_BODIES[name]
    before = len(upstream.requests)
    response = httpx.post(
        url,
        content=raw.encode(),
        timeout=30,
        headers={"authorization": "Bearer tok", "content-type": "application/json"},
    )
    _assert_one_line_400(response, where)
    assert len(upstream.requests) == before


def test_well_formed_body_still_answers(proxy_url: tuple[str, FakeOpenAI]) -> None:
    url, _ = proxy_url
    ok = body(
        messages=[{"role": "system", "content": [{"type": "text", "text": "be brief"}]}, USER],
        tools=[tool({"name": "f", "description": "d", "parameters": {"type": "object"}})],
        temperature=0.2,
        seed=3,
        tool_choice={"type": "function", "function": {"name": "f"}},
    )
    response = httpx.post(url, json=ok, headers={"authorization": "Bearer tok"}, timeout=30)
    assert response.status_code == 200, response.text
