"""The cap under concurrency and across a kill -9, against a real local server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ratchet.config.project import Price
from ratchet.core.chat import ChatRequest
from ratchet.core.errors import BudgetError
from ratchet.llm.budget import check_affordable, estimate
from ratchet.llm.pricing import worst_case_cost
from ratchet.store.db import open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, SENTINEL, live_project

PRICE = Price(input=1e-5, output=1e-3)
ROOT = Path(__file__).resolve().parents[2]


def test_cap_holds_under_50_threads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "1.0")
    with FakeOpenAI(delay_s=0.3) as server:
        project = live_project(tmp_path, server, price=PRICE)
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="cap")
        model = gw.model("nano", "judge-nano")
        requests = [ChatRequest(messages=[{"role": "user", "content": f"q{i:02d}"}], max_tokens=100) for i in range(50)]
        worst = max(worst_case_cost(PRICE, r) for r in requests)
        assert 50 * worst > 3.0  # together the worst cases are far past the cap

        def call(r: ChatRequest) -> str:
            try:
                model.complete(r)
            except BudgetError:
                return "refused"
            return "ok"

        with ThreadPoolExecutor(max_workers=50) as pool:
            outcomes = list(pool.map(call, requests))
        admitted = outcomes.count("ok")
        assert 0 < admitted < 50 and outcomes.count("refused") == 50 - admitted
        # Refused calls never reached the server; the ledger matches what the server saw.
        assert len(server.requests) == admitted
        seen = sorted(r["body"]["messages"][0]["content"] for r in server.requests)
        assert seen == sorted(r.messages[0].content or "" for r, o in zip(requests, outcomes, strict=True) if o == "ok")
        rows = store.ledger("cap")
        assert len(rows) == admitted and all(r.status == "ok" for r in rows)
        tin, tout = server.usage_seen()
        assert (sum(r.tokens_in for r in rows), sum(r.tokens_out for r in rows)) == (tin, tout)
        assert store.total_spend() == pytest.approx(tin * PRICE.input + tout * PRICE.output)
        assert store.total_spend() <= 1.0 and store.reserved() == 0.0
        gw.close()
        store.close()


_CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, {root!r})
from ratchet.config.project import Price
from ratchet.llm.gateway import Gateway
from ratchet.core.chat import ChatRequest
from ratchet.store.db import open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.llm.live_fixtures import live_project

server = FakeOpenAI()
server.port = int(sys.argv[2])
project = live_project(Path(sys.argv[1]), server, price=Price(input=1e-5, output=1e-3))
gw = Gateway(project, open_store(project.home), run_id="crashy")
model = gw.model("agent", "replay")
for text in ("first", "second"):
    model.complete(ChatRequest(messages=[{{"role": "user", "content": text}}], max_tokens=100))
    print("done", text, flush=True)
"""


def test_kill_9_mid_run_keeps_spend_and_pays_nothing_twice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "1.0")
    with FakeOpenAI() as server:
        server.script("ok", ("sleep", 30))  # the second call hangs: we kill the run during it
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD.format(root=str(ROOT)), str(tmp_path), str(server.port)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        deadline = time.monotonic() + 60
        while len(server.requests) < 2:
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        out, err = child.communicate()
        assert out == "done first\n"
        assert SENTINEL not in out + err

        project = live_project(tmp_path, server, price=PRICE)
        store = open_store(project.home)
        paid_first = store.total_spend()
        assert paid_first > 0 and store.reserved() > 0  # the hung call's reservation is still held
        held = store.reserved()
        gw = sim_gateway(project, store, run_id="again", ledger_hits=True)  # recovers the dead run's reservation
        assert store.reserved() == 0.0
        assert store.total_spend() == pytest.approx(paid_first + held)  # not reset, charged worst case
        model = gw.model("agent", "replay")
        for text in ("first", "second"):
            model.complete(ChatRequest(messages=[{"role": "user", "content": text}], max_tokens=100))
        # "first" came from the cache; only the call that never answered was made again.
        assert [r["body"]["messages"][0]["content"] for r in server.requests] == ["first", "second", "second"]
        assert [r.cache_hit for r in store.ledger("again")] == [True, False]
        assert store.total_spend() <= 1.0
        gw.close()
        store.close()


def test_estimate_refuses_more_than_is_left(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        project = live_project(tmp_path, server, price=PRICE)
    store = open_store(project.home)
    plan = estimate(project.config, {"replay": 10, "judge-nano": 10})
    # replay: 10 x (25k * 1e-5 + 5k * 1e-3); nano: 10 x (8k * 1e-5 + 300 * 1e-3)
    assert plan.total_usd == pytest.approx(10 * (0.25 + 5.0) + 10 * (0.08 + 0.3))
    assert "replay" in plan.render() and "total $" in plan.render()
    with pytest.raises(BudgetError, match="exceeds"):
        check_affordable(store, plan, cap=12.0)
    check_affordable(store, estimate(project.config, {"judge-nano": 1}), cap=12.0)
    store.close()
