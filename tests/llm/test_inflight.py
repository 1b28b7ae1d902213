"""In-flight coalescing: identical requests in flight share one upstream call and one payment."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ratchet.config.project import Price
from ratchet.core.chat import ChatRequest, ChatResponse
from ratchet.core.errors import BudgetError, ModelCallError
from ratchet.llm.inflight import InFlight
from ratchet.store.db import open_store
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gateways import sim_gateway
from tests.llm.live_fixtures import KEY_ENV, SENTINEL, live_project

THREADS = 8


def _request(text: str = "same question") -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": text}], max_tokens=50)


def _together(fn: object, n: int = THREADS) -> list[object]:
    """`fn()` in n threads released at once; each result, or the exception it raised."""
    gate = threading.Barrier(n)

    def one(_: int) -> object:
        gate.wait()
        try:
            return fn()  # type: ignore[operator]
        except Exception as exc:  # the outcome under test
            return exc

    with ThreadPoolExecutor(max_workers=n) as pool:
        return list(pool.map(one, range(n)))


def test_share_runs_the_work_once_for_callers_in_flight() -> None:
    flights: InFlight[str] = InFlight()
    calls: list[int] = []
    release = threading.Event()

    def work() -> str:
        calls.append(1)
        release.wait(5)
        return "answer"

    with ThreadPoolExecutor(max_workers=4) as pool:
        leader = pool.submit(flights.share, "k", work)
        while not calls:
            time.sleep(0.001)
        waiters = [pool.submit(flights.share, "k", work) for _ in range(3)]
        while flights.waiting("k") < 3:
            time.sleep(0.001)
        release.set()
        assert leader.result() == ("answer", False)
        assert [w.result() for w in waiters] == [("answer", True)] * 3
    assert len(calls) == 1
    assert flights.waiting("k") == 0
    # The flight is over: the next caller leads a new one.
    assert flights.share("k", lambda: "again") == ("again", False)


def test_a_failed_shared_call_fails_each_waiter_the_same_way() -> None:
    flights: InFlight[str] = InFlight()
    started = threading.Event()
    release = threading.Event()

    def work() -> str:
        started.set()
        release.wait(5)
        raise ModelCallError("upstream said no")

    with ThreadPoolExecutor(max_workers=3) as pool:
        leader = pool.submit(flights.share, "k", work)
        started.wait(5)
        waiters = [pool.submit(flights.share, "k", work) for _ in range(2)]
        while flights.waiting("k") < 2:
            time.sleep(0.001)
        release.set()
        errors = [f.exception() for f in (leader, *waiters)]
    assert all(isinstance(e, ModelCallError) for e in errors)
    assert [str(e) for e in errors] == ["upstream said no"] * 3
    assert len({id(e) for e in errors}) == 3  # each waiter raises its own copy


def test_identical_concurrent_calls_reach_the_server_once_and_pay_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "5")
    with FakeOpenAI(delay_s=0.3) as server:
        project = live_project(tmp_path, server)
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="coalesce")
        model = gw.model("nano", "judge-nano")
        outcomes = _together(lambda: model.complete(_request()))
        answers = [o for o in outcomes if isinstance(o, ChatResponse)]
        assert len(answers) == THREADS
        assert len(server.requests) == 1
        assert {a.message.content for a in answers} == {"echo: same question"}
        paid = [a for a in answers if not a.cache_hit]
        assert len(paid) == 1 and paid[0].usage.usd > 0
        assert all(a.usage.usd == 0.0 for a in answers if a.cache_hit)
        rows = store.ledger("coalesce")
        assert [(r.cache_hit, r.status) for r in rows] == [(False, "ok")]  # the ledger is what the server saw
        gw.flush()  # tallied hits are written with the gateway's batch
        assert store.calls("coalesce") == THREADS and store.cache_hits("coalesce") == THREADS - 1
        tin, tout = server.usage_seen()
        assert store.total_spend() == pytest.approx(tin * 1e-6 + tout * 2e-6)
        assert store.reserved() == 0.0
        gw.close()
        store.close()


def test_different_requests_are_not_coalesced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "5")
    with FakeOpenAI(delay_s=0.2) as server:
        project = live_project(tmp_path, server)
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="distinct")
        model = gw.model("nano", "judge-nano")
        counter = iter(range(THREADS))
        lock = threading.Lock()

        def ask() -> ChatResponse:
            with lock:
                i = next(counter)
            return model.complete(_request(f"question {i}"))

        outcomes = _together(ask)
        assert all(isinstance(o, ChatResponse) and not o.cache_hit for o in outcomes)
        assert len(server.requests) == THREADS
        assert len(store.ledger("distinct")) == THREADS
        gw.close()
        store.close()


def test_a_failed_shared_upstream_call_fails_every_waiter_with_one_ledger_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "5")
    with FakeOpenAI(delay_s=0.3) as server:
        server.script(400)  # not retried: one failed call
        project = live_project(tmp_path, server)
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="fails")
        model = gw.model("nano", "judge-nano")
        outcomes = _together(lambda: model.complete(_request()))
        assert all(isinstance(o, ModelCallError) for o in outcomes)
        assert len({str(o) for o in outcomes}) == 1
        assert SENTINEL not in str(outcomes[0])
        assert len(server.requests) == 1
        rows = store.ledger("fails")
        assert [r.status for r in rows] == ["error"]
        assert store.reserved() == 0.0
        gw.close()
        store.close()


def test_a_refused_reservation_refuses_every_waiter_and_reaches_no_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "0.00001")  # below one call's worst case
    with FakeOpenAI(delay_s=0.3) as server:
        project = live_project(tmp_path, server, price=Price(input=1e-5, output=1e-3))
        store = open_store(project.home)
        gw = sim_gateway(project, store, run_id="refused")
        model = gw.model("nano", "judge-nano")
        outcomes = _together(lambda: model.complete(_request()))
        assert all(isinstance(o, BudgetError) for o in outcomes)
        assert len({str(o) for o in outcomes}) == 1
        assert server.requests == []
        assert store.ledger("refused") == [] and store.total_spend() == 0.0 and store.reserved() == 0.0
        gw.close()
        store.close()


def test_a_cached_answer_needs_no_reservation_even_at_a_zero_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "5")
    with FakeOpenAI() as server:
        project = live_project(tmp_path, server)
        store = open_store(project.home)
        with sim_gateway(project, store, run_id="warm") as gw:
            gw.model("nano", "judge-nano").complete(_request())
        spent = store.total_spend()
        monkeypatch.setenv("RATCHET_BENCH_USD_CAP", str(spent))  # nothing left to reserve
        with sim_gateway(project, store, run_id="hits") as gw:
            model = gw.model("nano", "judge-nano")
            outcomes = _together(lambda: model.complete(_request()))
        assert all(isinstance(o, ChatResponse) and o.cache_hit for o in outcomes)
        assert len(server.requests) == 1
        assert store.cache_hits("hits") == THREADS and store.total_spend() == spent
        store.close()
