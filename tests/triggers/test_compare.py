"""compare_runs: a query's runs at base against its runs at head, by Fisher's one-sided exact test with Holm; and
compare: the queries of a skill in one direction read together, by a stratified exact test in the same Holm."""

from __future__ import annotations

import pytest

from ratchet.goldens.triggers import TriggerQuery
from ratchet.stats.binomial import fisher_greater
from ratchet.triggers.compare import compare, compare_runs
from ratchet.triggers.models import QueryRuns, TriggerRun


def query(qid: str, *, skill: str | None = "triage", should_fire: bool = True) -> TriggerQuery:
    return TriggerQuery(id=qid, prompt=f"prompt of {qid}", skill=skill, should_fire=should_fire, source="triggers")


def runs(q: TriggerQuery, fires: int, n: int, *, errors: int = 0) -> QueryRuns:
    """`n` runs of `q`, the first `fires` of which count as a fire, then `errors` errored runs."""
    hit = q.skill if q.should_fire or q.skill is not None else "some-skill"
    miss = "other-skill" if q.skill is not None else None
    made = [TriggerRun(query_id=q.id, run=i, seed=i, fired=hit if i < fires else miss, status="ok") for i in range(n)]
    made += [
        TriggerRun(query_id=q.id, run=n + i, seed=n + i, fired=None, status="error", error="timeout")
        for i in range(errors)
    ]
    return QueryRuns(query=q, runs=made)


def test_a_should_not_fire_query_that_starts_firing_is_r5_with_rates_and_p_values() -> None:
    q = query("triage:not:1", should_fire=False)
    [change] = compare_runs([runs(q, 0, 5)], [runs(q, 5, 5)], alpha=0.05)
    assert (change.outcome, change.regression, change.rates) == ("worse", "R5", "0/5 -> 5/5")
    assert change.p_value == pytest.approx(1 / 252) and change.adjusted_p == pytest.approx(1 / 252)


def test_a_should_fire_query_that_stops_firing_is_r6_and_the_reverse_is_better() -> None:
    q = query("triage:fire:1")
    [dropped] = compare_runs([runs(q, 5, 5)], [runs(q, 0, 5)], alpha=0.05)
    [gained] = compare_runs([runs(q, 0, 5)], [runs(q, 5, 5)], alpha=0.05)
    assert (dropped.outcome, dropped.regression) == ("worse", "R6")
    assert (gained.outcome, gained.regression, gained.p_value) == ("better", None, pytest.approx(1.0))


def test_a_canary_that_fires_any_skill_is_r5() -> None:
    q = query("canary:not:1", skill=None, should_fire=False)
    [change] = compare_runs([runs(q, 0, 5)], [runs(q, 5, 5)], alpha=0.05)
    assert (change.outcome, change.regression, change.skill) == ("worse", "R5", None)


def test_an_errored_run_at_either_side_is_errors_never_a_negative() -> None:
    q = query("triage:fire:1")
    [change] = compare_runs([runs(q, 5, 5)], [runs(q, 0, 4, errors=1)], alpha=0.05)
    assert (change.outcome, change.p_value, change.head_errors, change.head_n) == ("errors", None, 1, 4)
    [missing] = compare_runs([runs(q, 5, 5)], [], alpha=0.05)  # never ran at the head (the budget stopped it)
    assert missing.outcome == "errors"


def test_a_move_too_few_runs_could_ever_settle_is_unsettled() -> None:
    q = query("triage:not:1", should_fire=False)
    [change] = compare_runs([runs(q, 0, 2)], [runs(q, 2, 2)], alpha=0.05)  # 2 of 2 vs 0 of 2: p = 1/6 at best
    assert (change.outcome, change.regression) == ("unsettled", None)
    assert change.p_value == pytest.approx(1 / 6)


def test_holm_leaves_a_move_significant_alone_unsettled_over_the_family() -> None:
    big, small, still = query("a:not:1", should_fire=False), query("b:not:1", should_fire=False), query("c:fire:1")
    base = [runs(big, 0, 10), runs(small, 0, 10), runs(still, 3, 10)]
    head = [runs(big, 10, 10), runs(small, 4, 10), runs(still, 3, 10)]
    changes = compare_runs(base, head, alpha=0.05)
    assert [c.outcome for c in changes] == ["worse", "unsettled", "same"]
    assert changes[1].p_value == pytest.approx(fisher_greater(4, 10, 0, 10))  # 0.043: significant alone
    assert changes[1].adjusted_p == pytest.approx(2 * fisher_greater(4, 10, 0, 10))  # 0.087 over three tests


def test_queries_that_cannot_move_are_no_part_of_the_family() -> None:
    """Twenty queries that fired at every run, or at none, on both sides cannot reach alpha: they do not dilute
    the one that moved (Holm over 21 would need p <= 0.0024, which 0 of 5 -> 5 of 5, p = 0.004, is not)."""
    moved = query("triage:not:1", should_fire=False)
    still = [query(f"other:fire:{i}") for i in range(20)]
    base = [runs(moved, 0, 5), *(runs(q, 5 * (i % 2), 5) for i, q in enumerate(still))]
    head = [runs(moved, 5, 5), *(runs(q, 5 * (i % 2), 5) for i, q in enumerate(still))]
    changes = compare_runs(base, head, alpha=0.05)
    assert changes[0].outcome == "worse" and changes[0].adjusted_p == pytest.approx(1 / 252)
    assert {(c.outcome, c.adjusted_p) for c in changes[1:]} == {("same", None)}


def test_thirteen_should_fire_queries_that_all_stop_firing_block_as_one_family() -> None:
    """Each 5/5 -> 0/5 has p = 1/252 = 0.00397 alone, above Holm's first step over thirteen (0.05 / 13 = 0.0038):
    query by query nothing rejects, the more queries an edit breaks the less it would BLOCK. Read as one family
    (stratified exact test) they are one tiny p-value, in the same Holm correction (14 hypotheses)."""
    broken = [query(f"triage:fire:{i}") for i in range(1, 14)]
    compared = compare([runs(q, 5, 5) for q in broken], [runs(q, 0, 5) for q in broken], alpha=0.05)
    assert {(c.outcome, c.regression) for c in compared.queries} == {("unsettled", None)}
    assert compared.queries[0].adjusted_p == pytest.approx(13 / 252)  # 0.0516: none is worse on its own
    [family] = compared.families
    assert (family.skill, family.should_fire, family.outcome, family.regression) == ("triage", True, "worse", "R6")
    assert (family.rates, family.queries, family.moved) == (
        "65/65 -> 0/65",
        [q.id for q in broken],
        [q.id for q in broken],
    )
    assert family.p_value == pytest.approx((1 / 252) ** 13) and family.adjusted_p == pytest.approx(14 * (1 / 252) ** 13)


def test_one_query_that_stops_firing_among_unchanged_ones_is_decided_as_before() -> None:
    """The family's other queries fired at every run, or at none, on both sides: only one query can vary, so the
    family is that query's own test again, not a second hypothesis (no family, the query's Holm unchanged)."""
    moved = query("triage:fire:1")
    still = [query(f"triage:fire:{i}") for i in range(2, 12)]
    base = [runs(moved, 5, 5), *(runs(q, 5 * (i % 2), 5) for i, q in enumerate(still))]
    head = [runs(moved, 0, 5), *(runs(q, 5 * (i % 2), 5) for i, q in enumerate(still))]
    compared = compare(base, head, alpha=0.05)
    assert compared.families == []
    assert compared.queries == compare_runs(base, head, alpha=0.05)
    first = compared.queries[0]
    assert (first.outcome, first.regression, first.adjusted_p) == ("worse", "R6", pytest.approx(1 / 252))


def test_should_not_fire_queries_and_canaries_are_families_of_their_own_in_the_r5_direction() -> None:
    rising = [query(f"triage:not:{i}", should_fire=False) for i in range(1, 4)]
    canaries = [query(f"canary:not:{i}", skill=None, should_fire=False) for i in range(1, 4)]
    base = [runs(q, 1, 5) for q in rising + canaries]
    head = [runs(q, 4, 5) for q in rising] + [runs(q, 1, 5) for q in canaries]
    compared = compare(base, head, alpha=0.05)
    # 1/5 -> 4/5 is p = 0.103 alone: each rising query is unsettled on its own (a move of three runs in five)
    assert [c.outcome for c in compared.queries] == ["unsettled"] * 3 + ["same"] * 3
    not_fire, canary = compared.families
    assert (not_fire.skill, not_fire.should_fire, not_fire.outcome, not_fire.regression) == (
        "triage",
        False,
        "worse",
        "R5",
    )
    assert not_fire.rates == "3/15 -> 12/15" and not_fire.moved == [q.id for q in rising]
    assert (canary.skill, canary.outcome, canary.regression, canary.moved) == (None, "same", None, [])


def test_a_a_queries_move_no_family() -> None:
    qs = [query(f"triage:fire:{i}") for i in range(1, 6)] + [
        query(f"triage:not:{i}", should_fire=False) for i in range(1, 6)
    ]
    same = [runs(q, 1 + i % 4, 5) for i, q in enumerate(qs)]
    compared = compare(same, same, alpha=0.05)
    assert [(f.should_fire, f.outcome, f.moved) for f in compared.families] == [(True, "same", []), (False, "same", [])]
    assert all(f.p_value > 0.5 for f in compared.families)
    assert {c.outcome for c in compared.queries} == {"same"}


@pytest.mark.parametrize(("base", "head", "outcome"), [(5, 4, "same"), (5, 3, "unsettled"), (5, 2, "unsettled")])
def test_a_drop_the_test_cannot_settle_is_named_once_it_is_a_quarter_of_the_runs(
    base: int, head: int, outcome: str
) -> None:
    # 5/5 -> 2/5 is p = 0.083: not significant, and not nothing either. It is WARN with its numbers; one run in
    # five (5/5 -> 4/5) is what a noisy model does between two runs of five.
    q = query("triage:fire:1")
    [change] = compare_runs([runs(q, base, 5)], [runs(q, head, 5)], alpha=0.05)
    assert (change.outcome, change.regression) == (outcome, None)
