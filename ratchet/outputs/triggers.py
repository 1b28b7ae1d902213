"""Trigger queries as the terminal and the pull-request comment show them (ratchet.gate.triggers, docs/adr/0025).

One header line (what ran, how often, at what alpha) and one row per query that did not come out `same`, worst
first, with its fire counts at base and head and its p-values; the queries that stayed put are counted in one
row. A family (a skill's should-fire queries, its should-not-fire ones, the canaries, read as one stratified exact
test) that did not come out `same` is a row above them, its counts summed over its queries. The summary line
already opens with the worst of them.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from ratchet.triggers.compare import FamilyChange, QueryChange
from ratchet.triggers.verdict import TriggerCheck

_ORDER = {"worse": 0, "unsettled": 1, "errors": 2, "better": 3, "same": 4}
COLUMNS = ("query", "expects", "base", "head", "p", "Holm", "outcome")


class TriggerRow(NamedTuple):
    """One query as a row: its id, what it expects, fires of runs at base and head, p-values, outcome."""

    query: str
    expects: str
    base: str
    head: str
    p: str
    holm: str
    outcome: str


def trigger_header(check: TriggerCheck) -> str:
    """`trigger queries: 12 run 5 times at base and head (github-triage; neighbours fx), alpha 0.05: 1 worse, 11 same`."""
    counts = Counter(query.outcome for query in check.queries)
    tally = ", ".join(f"{counts[o]} {o}" for o in sorted(counts, key=_ORDER.__getitem__)) or "none to run"
    near = f"; neighbours {', '.join(check.neighbours)}" if check.neighbours else ""
    families = Counter(family.outcome for family in check.families)
    joint = ", ".join(f"{families[o]} {o}" for o in sorted(families, key=_ORDER.__getitem__))
    return (
        f"trigger queries: {len(check.queries)} run {check.repeats} time(s) at base and head "
        f"({', '.join(check.skills)}{near}), alpha {check.alpha:g} Holm-corrected: {tally}"
        + (f"; families of queries: {joint}" if joint else "")
    )


def family_name(family: FamilyChange) -> str:
    """`github-triage should-fire queries (13, 13 moved)`, `canaries (3, 0 moved)`."""
    what = (
        "canaries" if family.skill is None else f"{family.skill} should-{'fire' if family.should_fire else 'not-fire'}"
    )
    return f"{what} queries ({len(family.queries)}, {len(family.moved)} moved)"


def expects(query: QueryChange | FamilyChange) -> str:
    if query.skill is None:
        return "no skill fires"
    return f"{query.skill} {'fires' if query.should_fire else 'does not fire'}"


def p_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.3g}"


def worst_first(queries: list[QueryChange]) -> list[QueryChange]:
    """`queries` worse, unsettled, errors, better, same; file order within an outcome."""
    return sorted(queries, key=lambda q: _ORDER[q.outcome])


def fires(fired: int, ran: int, errors: int) -> str:
    """`3/5`, `3/5 +2 err`: runs that fired of those that ran, and those that errored."""
    return f"{fired}/{ran}" + (f" +{errors} err" if errors else "")


def _family_row(family: FamilyChange) -> TriggerRow:
    return TriggerRow(
        query=f"family: {family_name(family)}",
        expects=expects(family),
        base=f"{family.base_fires}/{family.base_n}",
        head=f"{family.head_fires}/{family.head_n}",
        p=p_text(family.p_value),
        holm=p_text(family.adjusted_p),
        outcome=f"{family.outcome} ({family.regression})" if family.regression else family.outcome,
    )


def trigger_rows(check: TriggerCheck) -> list[TriggerRow]:
    """Each family, then each query, that did not stay the same, worst first (file order within an outcome), then
    one row for the queries that did."""
    moved = worst_first([q for q in check.queries if q.outcome != "same"])
    families = sorted((f for f in check.families if f.outcome != "same"), key=lambda f: _ORDER[f.outcome])
    rows = [_family_row(family) for family in families]
    rows += [
        TriggerRow(
            query=f"{q.query_id}: {q.prompt}",
            expects=expects(q),
            base=fires(q.base_fires, q.base_n, q.base_errors),
            head=fires(q.head_fires, q.head_n, q.head_errors),
            p=p_text(q.p_value),
            holm=p_text(q.adjusted_p),
            outcome=f"{q.outcome} ({q.regression})" if q.regression else q.outcome,
        )
        for q in moved
    ]
    same = len(check.queries) - len(moved)
    if same:
        rows.append(TriggerRow(f"{same} more", "", "", "", "", "", "same"))
    return rows


class TriggerCase(NamedTuple):
    """A query or family that is not PASS as a CI report shows it: it, a one-line message, its evidence."""

    query: QueryChange | FamilyChange
    message: str
    body: str

    @property
    def name(self) -> str:
        """The query's id, or `family: <skill> should-fire queries (...)`."""
        return self.query.query_id if isinstance(self.query, QueryChange) else f"family: {family_name(self.query)}"


def _family_case(check: TriggerCheck, family: FamilyChange) -> TriggerCase:
    base, head = f"{family.base_fires}/{family.base_n}", f"{family.head_fires}/{family.head_n}"
    tag = f" ({family.regression})" if family.regression else ""
    message = (
        f"{family.regression + ': ' if family.regression else ''}{expects(family)}: its {len(family.queries)} "
        f"queries fired {base} at base -> {head} at head, p={p_text(family.p_value)}, Holm {p_text(family.adjusted_p)}"
    )
    lines = [
        f"{family.outcome}{tag}: {expects(family)} on its {len(family.queries)} queries: {', '.join(family.queries)}",
        f"moved the wrong way: {', '.join(family.moved) or 'none'}",
        f"fired at base {base}, at head {head} (summed over the queries, {check.repeats} run(s) each)",
        f"stratified exact p {p_text(family.p_value)}, Holm-adjusted {p_text(family.adjusted_p)}, alpha {check.alpha:g}",
    ]
    return TriggerCase(family, message, "\n".join(lines) + "\n")


def trigger_cases(check: TriggerCheck) -> list[TriggerCase]:
    """Each query that is not PASS (worse, unsettled, errors), worst first, with its evidence one fact a line:
    what a CI report shows per query (ratchet.outputs.junit); the terminal and the comment show the table. A family
    that is not PASS (worse, unsettled) comes first."""
    families = sorted(check.families_of("worse", "unsettled"), key=lambda f: _ORDER[f.outcome])
    cases = [_family_case(check, family) for family in families]
    for q in worst_first(check.of("worse", "unsettled", "errors")):
        base, head = fires(q.base_fires, q.base_n, q.base_errors), fires(q.head_fires, q.head_n, q.head_errors)
        tested = f", p={p_text(q.p_value)}, Holm {p_text(q.adjusted_p)}" if q.p_value is not None else ""
        message = f"{q.regression + ': ' if q.regression else ''}{expects(q)}: fired {base} at base -> {head} at head"
        lines = [
            f"{q.outcome}{f' ({q.regression})' if q.regression else ''}: {expects(q)} on: {q.prompt}",
            f"fired at base {base}, at head {head} (of {check.repeats} run(s) each)",
            f"one-sided Fisher exact p {p_text(q.p_value)}, Holm-adjusted {p_text(q.adjusted_p)}, alpha {check.alpha:g}",
        ]
        cases.append(TriggerCase(q, message + tested, "\n".join(lines) + "\n"))
    return cases
