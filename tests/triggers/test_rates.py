"""Trigger rates: a query's fires over the runs that ran; per skill pooled recall and false fires; canaries apart."""

from __future__ import annotations

from ratchet.goldens.triggers import TriggerQuery
from ratchet.triggers.models import QueryRuns, TriggerRun
from ratchet.triggers.rates import Rate, query_rate, skill_rates


def _runs(qid: str, skill: str | None, should_fire: bool, fired: list[str | Exception | None]) -> QueryRuns:
    query = TriggerQuery(id=qid, prompt="p", skill=skill, should_fire=should_fire, source="triggers")
    runs = [
        TriggerRun(query_id=qid, run=n, seed=n, fired=None, status="error", error=str(f))
        if isinstance(f, Exception)
        else TriggerRun(query_id=qid, run=n, seed=n, fired=f, status="ok")
        for n, f in enumerate(fired)
    ]
    return QueryRuns(query=query, runs=runs)


def test_an_error_counts_neither_way() -> None:
    runs = _runs("q", "a", True, ["a", None, TimeoutError("timed out"), "b"])
    assert (runs.fires, runs.ok, runs.errors) == (1, 3, 1)
    rate = query_rate(runs)
    assert (rate.fire.k, rate.fire.n, rate.errors, rate.first_error) == (1, 3, 1, "timed out")
    assert rate.fired == {"": 1, "a": 1, "b": 1}


def test_skills_pool_their_queries_and_canaries_count_any_skill() -> None:
    rates = skill_rates(
        [
            _runs("a:fire:1", "a", True, ["a", "a"]),
            _runs("a:fire:2", "a", True, ["a", None]),
            _runs("a:not:1", "a", False, ["a", "b"]),  # b firing is no false fire of a
            _runs("canary:not:1", None, False, ["b", None]),
        ]
    )
    assert [(r.skill, r.recall.k, r.recall.n, r.false_fire.k, r.false_fire.n) for r in rates] == [
        ("a", 3, 4, 1, 2),
        (None, 0, 0, 1, 2),
    ]


def test_a_rate_of_nothing_is_no_rate() -> None:
    assert Rate.of(0, 0).model_dump() == {"k": 0, "n": 0, "rate": None, "low": 0.0, "high": 1.0}
    assert Rate.of(5, 5).text() == "5/5 1.00 [0.57, 1.00]"
