"""Compare: a query's trigger runs at base against its runs at head, decided by an exact test (docs/adr/0025).

Each query ran N times at each side with the same seeds (ratchet.triggers.run): at the base under the base's
skills, at the head under the head's. Its question is one-sided and fixed by the query, never by the data:

- a should-fire query regresses (R6, under-firing) when the base fired it more often than the head does:
  p = fisher_greater(base fires of N, head fires of N) ("base beats head", ratchet.stats.binomial);
- a should-not-fire query, or a canary (no skill may fire), regresses (R5, over-firing) when the head fires
  more often than the base: p = fisher_greater(head fires, base fires).

Fisher's test conditions on the margins (how many runs fired over both sides), so the uncertainty of both rates
counts, and its p-value is exact however few the runs. One test per query, read together, so the p-values are
Holm-adjusted (ratchet.stats.multiple) over the family of queries the test could flag: a query whose margins
make significance impossible (it fired at every run, or at none, on both sides: nothing moved) is no test at
all and is left out of the family (Tarone's refinement: a query that cannot reject at alpha cannot reject at
alpha/m either, so the chance of a false BLOCK over the family stays at most alpha, and an edit that moves one
query of a hundred is not diluted by the ninety-nine that stayed put).

Outcomes: adjusted p <= alpha is `worse` (BLOCK); a move in the bad direction with raw p <= alpha that the
correction does not carry, or one these run counts could never settle (even N of N against 0 of N would not
reach alpha), is `unsettled` (WARN with the numbers: more repeats can settle it); a query with an errored run
at either side is `errors` (WARN: what did not run is never a negative, ratchet.triggers.run); otherwise
`better` when the rate moved the good way, else `same`.

Families: one test per query misses an edit that breaks many queries at once, at few runs each (at 5 runs a side a
full flip has p = 1/252 alone; thirteen of them fail Holm's first step, 0.05 / 13 = 0.0038). So the queries are
also read together, per skill and direction: a skill's should-fire queries (R6: does the head fire them less?), its
should-not-fire queries (R5: more?), and the canaries (R5: does any skill fire more?). Each family is one stratified
exact test (ratchet.stats.stratified): each query a stratum on its own margins, the statistic the bad side's fires
summed, its null distribution the exact convolution of the queries' hypergeometrics. A family enters the same Holm
correction as the queries (one family-wise error over every hypothesis) when it is a test of its own (at least two of
its queries can vary given their margins: with one, it is that query's test again) and it could reach alpha
(Tarone's rule, as for a query: its smallest attainable p, every query at its extreme, is at most alpha). A family
rejected is `worse`, R6 or R5, and BLOCKs; the queries that moved the bad way are its evidence, each keeping its own
outcome. Significant alone but not over the correction: `unsettled`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from ratchet.skills.names import skill_key
from ratchet.stats.binomial import fisher_greater
from ratchet.stats.multiple import holm
from ratchet.stats.stratified import Stratum, stratified_greater, stratified_min_p, varying
from ratchet.triggers.models import QueryRuns

QueryOutcome = Literal["same", "worse", "unsettled", "better", "errors"]
FamilyOutcome = Literal["same", "worse", "unsettled", "better"]
TriggerRegression = Literal["R5", "R6"]


class QueryChange(BaseModel):
    """One trigger query at base and head: its fire counts, the exact test's p-values and what they come to."""

    query_id: str
    prompt: str
    skill: str | None = Field(description="The skill the query is about; null: a canary (no skill may fire).")
    should_fire: bool
    base_fires: int = Field(ge=0, description="Runs at the base that counted as a fire (of base_n that ran).")
    base_n: int = Field(ge=0, description="Runs at the base that ran (errors apart).")
    head_fires: int = Field(ge=0)
    head_n: int = Field(ge=0)
    base_errors: int = Field(default=0, ge=0, description="Runs at the base that timed out or crashed.")
    head_errors: int = Field(default=0, ge=0)
    p_value: float | None = Field(
        description="One-sided Fisher exact p-value in the query's bad direction; null: not tested (errors)."
    )
    adjusted_p: float | None = Field(
        description="Holm-adjusted over the queries that could reach alpha; null: not in that family."
    )
    outcome: QueryOutcome
    regression: TriggerRegression | None = Field(
        default=None, description="R6 (a should-fire query fires less) or R5 (a should-not-fire one fires more)."
    )

    @property
    def rates(self) -> str:
        """`0/5 -> 5/5`: the fire counts at base and head."""
        return f"{self.base_fires}/{self.base_n} -> {self.head_fires}/{self.head_n}"


class FamilyChange(BaseModel):
    """A skill's should-fire queries, or its should-not-fire ones, or the canaries, read as one stratified exact
    test: their fires summed at base and head, the p-value and what it comes to."""

    skill: str | None = Field(description="The skill the queries are about; null: the canaries (no skill may fire).")
    should_fire: bool = Field(description="True: the skill's should-fire queries (R6); false: should-not-fire (R5).")
    queries: list[str] = Field(description="The family's tested queries (the strata), in file order.")
    moved: list[str] = Field(
        default_factory=list, description="Those of them that moved the bad way (the family's evidence)."
    )
    base_fires: int = Field(ge=0, description="Fires at the base, summed over the family's queries.")
    base_n: int = Field(ge=0)
    head_fires: int = Field(ge=0)
    head_n: int = Field(ge=0)
    p_value: float = Field(description="One-sided stratified exact p-value in the family's bad direction.")
    adjusted_p: float | None = Field(
        description="Holm-adjusted over the queries and families that could reach alpha; null: not among them."
    )
    outcome: FamilyOutcome
    regression: TriggerRegression | None = None

    @property
    def rates(self) -> str:
        return f"{self.base_fires}/{self.base_n} -> {self.head_fires}/{self.head_n}"


class Compared(NamedTuple):
    """Every query decided, and every family tested as its own hypothesis, under one Holm correction."""

    queries: list[QueryChange]
    families: list[FamilyChange]


def compare_runs(base: Sequence[QueryRuns], head: Sequence[QueryRuns], *, alpha: float) -> list[QueryChange]:
    """Each query of `base` (in its order) against its runs in `head`, by query id; decided at `alpha` (compare)."""
    return compare(base, head, alpha=alpha).queries


def compare(base: Sequence[QueryRuns], head: Sequence[QueryRuns], *, alpha: float) -> Compared:
    """Each query of `base` (in its order) against its runs in `head`, by query id, and each family of them; one
    Holm correction over every query and family that could reach alpha.

    A query with no runs at the head (or none that ran at either side) is `errors`: never PASS on what did not run.
    """
    at_head = {runs.query.id: runs for runs in head}
    counted = [_counts(runs, at_head.get(runs.query.id)) for runs in base]
    families = _families(counted)
    tested = [
        (i, c.p_value) for i, c in enumerate(counted) if c.p_value is not None and _min_p_given_margins(c) <= alpha
    ]
    joint = [(j, p) for j, (_, p, min_p) in enumerate(families) if min_p <= alpha]
    adjusted = holm([p for _, p in tested] + [p for _, p in joint])
    by_query = {i: a for (i, _), a in zip(tested, adjusted[: len(tested)], strict=True)}
    by_family = {j: a for (j, _), a in zip(joint, adjusted[len(tested) :], strict=True)}
    queries = [_decided(c, by_query.get(i), alpha) for i, c in enumerate(counted)]
    return Compared(queries, [_family_decided(f, p, by_family.get(j), alpha) for j, (f, p, _) in enumerate(families)])


def _families(counted: Sequence[QueryChange]) -> list[tuple[list[QueryChange], float, float]]:
    """Each family tested as its own hypothesis, by first appearance: (its queries, p-value, smallest attainable p).
    A family is the tested queries about one skill in one direction (the canaries: one family); it is a test of its
    own when at least two of its queries can vary given their margins."""
    groups: dict[tuple[str | None, bool], list[QueryChange]] = {}
    for change in counted:
        if change.p_value is not None:
            key = (None if change.skill is None else skill_key(change.skill), change.should_fire)
            groups.setdefault(key, []).append(change)
    found = []
    for members in groups.values():
        strata: list[Stratum] = [_bad_side(c) for c in members]
        if varying(strata) >= 2:
            found.append((members, stratified_greater(strata), stratified_min_p(strata)))
    return found


def _family_decided(members: list[QueryChange], p: float, adjusted: float | None, alpha: float) -> FamilyChange:
    first = members[0]
    strata = [_bad_side(c) for c in members]
    bad = sum(r for r, _, _, _ in strata)
    expected = sum(Fraction((r + f) * k, k + n) for r, k, f, n in strata)  # the bad side's fires under the null
    outcome: FamilyOutcome
    if adjusted is not None and adjusted <= alpha:
        outcome = "worse"
    elif bad > expected and p <= alpha:
        outcome = "unsettled"  # significant alone but not over the correction
    else:
        outcome = "better" if bad < expected else "same"
    regression: TriggerRegression = "R6" if first.should_fire else "R5"
    return FamilyChange(
        skill=first.skill,
        should_fire=first.should_fire,
        queries=[c.query_id for c in members],
        moved=[c.query_id for c, (r, k, f, n) in zip(members, strata, strict=True) if r * n > f * k],
        base_fires=sum(c.base_fires for c in members),
        base_n=sum(c.base_n for c in members),
        head_fires=sum(c.head_fires for c in members),
        head_n=sum(c.head_n for c in members),
        p_value=p,
        adjusted_p=adjusted,
        outcome=outcome,
        regression=regression if outcome == "worse" else None,
    )


def _counts(base: QueryRuns, head: QueryRuns | None) -> QueryChange:
    """The query's counts at both sides and its raw p-value (None when a run errored or none ran)."""
    query = base.query
    base_fires, base_n, base_errors = _tally(base)
    head_fires, head_n, head_errors = _tally(head) if head is not None else (0, 0, 0)
    tested = head is not None and not base_errors and not head_errors and base_n > 0 and head_n > 0
    p_value = None
    if tested:
        bad, good = ((base_fires, base_n), (head_fires, head_n))
        if not query.should_fire:
            bad, good = good, bad
        p_value = fisher_greater(bad[0], bad[1], good[0], good[1])
    return QueryChange(
        query_id=query.id,
        prompt=query.prompt,
        skill=query.skill,
        should_fire=query.should_fire,
        base_fires=base_fires,
        base_n=base_n,
        head_fires=head_fires,
        head_n=head_n,
        base_errors=base_errors,
        head_errors=head_errors,
        p_value=p_value,
        adjusted_p=None,
        outcome="errors" if not tested else "same",
    )


def _tally(runs: QueryRuns) -> tuple[int, int, int]:
    """(fires, ran, errors) of one side's runs: a fire is an ok run that counts for the query (fired_counts)."""
    ok = [run for run in runs.runs if run.status == "ok"]
    fires = sum(1 for run in ok if runs.query.fired_counts(run.fired))
    return fires, len(ok), len(runs.runs) - len(ok)


UNSETTLED_MOVE = 0.25
"""A fire rate that moved the wrong way by this much (5/5 -> 3/5, 10/10 -> 7/10) is WARN with its numbers even when
the test cannot settle it; a smaller move (5/5 -> 4/5) is what a noisy model does between two runs of N."""


def _bad_side(change: QueryChange) -> tuple[int, int, int, int]:
    """(r, k, f, n) with r of k the side whose higher rate is the regression: the base for a should-fire query."""
    if change.should_fire:
        return change.base_fires, change.base_n, change.head_fires, change.head_n
    return change.head_fires, change.head_n, change.base_fires, change.base_n


def _min_p_given_margins(change: QueryChange) -> float:
    """The smallest p-value any split of this query's fires between the sides could give (Tarone): the margins
    (runs per side, fires in all) are what Fisher's test conditions on."""
    _, k, _, n = _bad_side(change)
    total = change.base_fires + change.head_fires
    most = min(k, total)
    return fisher_greater(most, k, total - most, n)


def _decided(change: QueryChange, adjusted: float | None, alpha: float) -> QueryChange:
    if change.outcome == "errors" or change.p_value is None:
        return change
    r, k, f, n = _bad_side(change)
    bad_move = r * n > f * k  # the bad side's rate is higher: the direction the query must not move
    regression: TriggerRegression = "R6" if change.should_fire else "R5"
    outcome: QueryOutcome
    if adjusted is not None and adjusted <= alpha:
        outcome = "worse"
    elif bad_move and (
        change.p_value <= alpha or fisher_greater(k, k, 0, n) > alpha or r / k - f / n >= UNSETTLED_MOVE
    ):
        # Significant alone but not over the family, too few runs ever to settle, or a move the wrong way by a
        # quarter of the runs or more that the counts cannot settle: named with its numbers, never a silent same.
        outcome = "unsettled"
    elif r * n < f * k:
        outcome = "better"
    else:
        outcome = "same"
    return change.model_copy(
        update={"adjusted_p": adjusted, "outcome": outcome, "regression": regression if outcome == "worse" else None}
    )
