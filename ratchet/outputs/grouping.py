"""Which pairs share a finding, so a report says "9 tasks" once instead of 9 near-identical rows.

A finding's `detail` carries task-specific values (the arguments of the new call), so two tasks that
hit the same added `email_send` read differently. `finding_label` keeps what is the same finding in
every task (kind, tool, effect) and drops the values; the per-pair evidence keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TypeVar

from pydantic import BaseModel, ConfigDict

from ratchet.gate.models import Finding, FindingKind, Outcome, PairOutcome, Severity, Verdict

K = TypeVar("K", bound=Hashable)

SEVERITY_ORDER: dict[Severity, int] = {"hard": 0, "diff": 1, "info": 2}
_OUTCOME_ORDER: dict[Outcome, int] = {
    "error": 0,
    "regression": 1,
    "unsure": 2,
    "inconclusive": 3,
    "drift": 4,
    "pass": 5,
    "same": 6,
}
NO_FINDING = "no tool-call or output difference"
"""The label of pairs that differ from `same` without a Level 0 finding (e.g. a judge error)."""


class FindingGroup(BaseModel):
    """One distinct finding and every pair it was found in."""

    model_config = ConfigDict(frozen=True)

    label: str
    kind: FindingKind | None = None
    severity: Severity | None = None
    task_ids: tuple[str, ...]
    outcomes: tuple[tuple[Outcome, int], ...]
    """How the pairs it hit came out, worst first: ((regression, 9),)."""


def finding_label(finding: Finding) -> str:
    """The task-independent name of a finding: the same added call reads the same in every task."""
    tool = finding.tool or "?"
    match finding.kind:
        case "new_side_effect":
            return f"new side-effecting call {tool} [{finding.effect or '?'}]"
        case "call_added":
            return f"new read call {tool}"
        case "call_removed":
            return f"call no longer made: {tool}"
        case "args_changed":
            return f"arguments changed: {tool}"
        case "call_moved":
            return f"call moved: {tool}"
        case "repeated_after_lost_reply":
            return f"side effect repeated after a lost reply: {tool} [{finding.effect or '?'}]"
        case "state_changed":
            return f"final state changed: {finding.path or '?'}"
        case _:
            # routing, output, volatile facts and replay errors: the detail names no task-specific value
            # except a moved fact's values, which are the same world fact across tasks.
            return finding.detail


def _ordered_outcomes(outcomes: Iterable[Outcome]) -> tuple[tuple[Outcome, int], ...]:
    counts: dict[Outcome, int] = {}
    for outcome in outcomes:
        counts[outcome] = counts.get(outcome, 0) + 1
    return tuple(sorted(counts.items(), key=lambda item: _OUTCOME_ORDER[item[0]]))


def finding_groups(verdict: Verdict) -> list[FindingGroup]:
    """One group per distinct finding over the pairs that are not `same`, hard findings first.

    A pair appears in every group of a finding it has; a pair with no finding at all (a judge error,
    a drift verdict) lands in the NO_FINDING group, so no pair that differs goes unlisted.
    """
    hits: dict[tuple[str, FindingKind | None, Severity | None], list[PairOutcome]] = {}
    for pair in verdict.pairs:
        if pair.outcome == "same":
            continue
        keys: set[tuple[str, FindingKind | None, Severity | None]] = {
            (finding_label(f), f.kind, f.severity) for f in pair.findings
        } or {(NO_FINDING, None, None)}
        for key in keys:
            hits.setdefault(key, []).append(pair)
    groups = [
        FindingGroup(
            label=label,
            kind=kind,
            severity=severity,
            task_ids=tuple(sorted({p.task_id for p in pairs})),
            outcomes=_ordered_outcomes(p.outcome for p in pairs),
        )
        for (label, kind, severity), pairs in hits.items()
    ]
    return sorted(groups, key=lambda g: (SEVERITY_ORDER.get(g.severity, 3) if g.severity else 3, g.label))


def group_pairs(pairs: Sequence[PairOutcome], key: Callable[[PairOutcome], K]) -> list[tuple[K, list[PairOutcome]]]:
    """Pairs with equal keys together, in the order each key first appears (the verdict's order)."""
    groups: dict[K, list[PairOutcome]] = {}
    for pair in pairs:
        groups.setdefault(key(pair), []).append(pair)
    return list(groups.items())


_TRAILING_NUMBER = re.compile(r"^(.*?)(\d+)$")


def _runs(numbers: list[str]) -> list[str]:
    """`01, 02, 03, 05` -> `01..03`, `05`: consecutive numbers (same width) as one run."""
    runs: list[list[str]] = []
    for number in sorted(numbers, key=lambda n: (len(n), int(n))):
        last = runs[-1][-1] if runs else None
        if last is not None and len(last) == len(number) and int(number) == int(last) + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return [run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}" for run in runs]


def compact_ids(task_ids: Iterable[str]) -> list[str]:
    """Task ids with consecutive numbered ones folded: `fx-01, fx-02, fx-03, gh-07` -> `fx-01..03`, `gh-07`.

    Lossless (every id can be read back), so a terminal row or a table cell names every task it hit.
    """
    numbered: dict[str, list[str]] = {}
    plain: list[str] = []
    for task_id in sorted(set(task_ids)):
        match = _TRAILING_NUMBER.match(task_id)
        if match:
            numbered.setdefault(match.group(1), []).append(match.group(2))
        else:
            plain.append(task_id)
    parts = [f"{prefix}{run}" for prefix, numbers in numbered.items() for run in _runs(numbers)]
    return sorted(parts + plain)


def collapse_ids(task_ids: Sequence[str], *, shown: int = 4) -> str:
    """`9 tasks: fx-01..09` (one task: its id alone); past `shown` runs the rest is `…`, so a cell stays short."""
    if len(set(task_ids)) == 1:
        return task_ids[0]
    parts = compact_ids(task_ids)
    names = ", ".join(parts[:shown]) + (", …" if len(parts) > shown else "")
    return f"{len(set(task_ids))} tasks: {names}"
