"""The capture proxy, end to end: httpx client -> proxy -> gateway -> litellm -> fake server."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from ratchet.goldens.trace import read_trace
from ratchet.llm.proxy import CaptureProxy
from ratchet.sim.models import SIMULATOR
from ratchet.store.db import Store, open_store
from tests.helpers.fake_openai import FakeOpenAI, ThreadedServer
from tests.llm.live_fixtures import KEY_ENV, SENTINEL, live_project


@dataclass
class Rig:
    upstream: FakeOpenAI
    proxy: CaptureProxy
    store: Store
    url: str
    client: httpx.Client


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    with FakeOpenAI() as upstream:
        project = live_project(tmp_path, upstream)
        store = open_store(project.home)
        proxy = CaptureProxy(
            project,
            store,
            run_id="cap-run",
            token="tok-123",
            gateway_options={"ledger_hits": True, "simulator": SIMULATOR},
        )  # hits are read back as rows
        with ThreadedServer(proxy.app) as server, httpx.Client(timeout=30) as client:
            client.headers["authorization"] = "Bearer tok-123"
            yield Rig(upstream, proxy, store, f"http://127.0.0.1:{server.port}/v1", client)
        proxy.close()
        store.close()


BODY = {"model": "nano", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 20}


def test_chat_goes_through_the_gateway_and_is_cached(rig: Rig) -> None:
    first = rig.client.post(f"{rig.url}/chat/completions", json=BODY, headers={"x-ratchet-purpose": "judge-nano"})
    assert first.status_code == 200, first.text
    assert first.json()["choices"][0]["message"]["content"] == "echo: hi"
    assert first.headers["x-ratchet-cache-hit"] == "false" and float(first.headers["x-ratchet-cost-usd"]) > 0
    again = rig.client.post(f"{rig.url}/chat/completions", json=BODY, headers={"x-ratchet-run": "other"})
    assert again.headers["x-ratchet-cache-hit"] == "true"
    assert len(rig.upstream.requests) == 1
    rows = rig.store.ledger()
    assert [(r.run_id, r.purpose, r.cache_hit) for r in rows] == [
        ("cap-run", "judge-nano", False),
        ("other", "capture", True),
    ]
    models = rig.client.get(f"{rig.url}/models").json()
    assert [m["id"] for m in models["data"]] == ["agent", "nano", "super", "ultra"]
    assert SENTINEL not in first.text + again.text


def test_refusals_never_reach_the_upstream(rig: Rig) -> None:
    url = f"{rig.url}/chat/completions"
    assert rig.client.post(url, json=BODY, headers={"authorization": "Bearer wrong"}).status_code == 401
    assert httpx.post(url, json=BODY).status_code == 401
    assert rig.client.post(url, json=BODY, headers={"host": "evil.example:80"}).status_code == 403
    unknown = rig.client.post(url, json={**BODY, "model": "gpt-9"})
    assert unknown.status_code == 404 and "unknown upstream 'gpt-9'" in unknown.text
    assert (
        rig.client.post(url, json={**BODY, "stream": "yes"}).status_code == 400
    )  # stream=true: see test_proxy_responses.py
    assert rig.client.post(url, json=BODY, headers={"x-ratchet-run": "../etc"}).status_code == 400
    assert rig.upstream.requests == []
    assert rig.store.ledger() == []


def test_task_header_writes_a_pending_trace(rig: Rig) -> None:
    rig.upstream.script(("tool", "fx_rate", {"pair": "EURUSD"}))
    tools = [
        {"type": "function", "function": {"name": "fx_rate", "description": "rate", "parameters": {"type": "object"}}}
    ]
    headers = {"x-ratchet-task": "fx-1", "x-ratchet-purpose": "replay"}
    turn1 = {"model": "agent", "messages": [{"role": "user", "content": "EURUSD?"}], "tools": tools}
    r1 = rig.client.post(f"{rig.url}/chat/completions", json=turn1, headers=headers).json()
    call = r1["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "fx_rate"
    turn2 = {
        **turn1,
        "messages": [
            *turn1["messages"],
            r1["choices"][0]["message"],
            {"role": "tool", "tool_call_id": call["id"], "content": "1.08"},
        ],
    }
    assert rig.client.post(f"{rig.url}/chat/completions", json=turn2, headers=headers).status_code == 200
    trace = read_trace(rig.proxy.project.pending_dir / "fx-1.json")
    assert (trace.task_id, trace.prompt, trace.upstream, trace.simulated) == ("fx-1", "EURUSD?", "live", False)
    assert [(c.purpose, c.tier) for c in trace.model_calls] == [("replay", "agent"), ("replay", "agent")]
    assert [(t.name, t.arguments, t.result, t.effect) for t in trace.tool_calls] == [
        ("fx_rate", {"pair": "EURUSD"}, "1.08", "write")
    ]
    assert trace.final_output.startswith("echo:")
