"""report.md's section on the shipped goldens' mutation score, beside the bench's detection recall per skill.

Two measures of one skill's goldens: the mutation score (ratchet mutate: which deliberate breakages of the
skill its goldens notice) and the cascade run's detection recall (which of the bench's injected regressions
the gate decides WARN or BLOCK). Rendered from the results alone (results.json or summary.json); results
written before the bench measured the score say "not measured".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ratchet.bench.data.mutation import MutationRun, MutationSkill
from ratchet.bench.data.results import BenchResults, ScoredEdit
from ratchet.bench.report.metrics import DETECTED, detection_recall
from ratchet.bench.report.sections import Doc, metric_fn, pct
from ratchet.goldens.mutation import MUTANT_CLASSES

RECALL_CONFIG = "cascade"
TITLE = "Mutation score of the shipped goldens vs detection recall, per skill"


def mutation_section(doc: Doc, results: BenchResults) -> None:
    """Per skill: killed over checked in total and per class, beside the cascade's detection recall; then how
    the two relate (a rank correlation over the skills, when both vary)."""
    doc.section(
        TITLE,
        "`ratchet.mutate.run.mutate_project` (killed over checked; run by `ratchet.bench.run.mutation`) and "
        f"{metric_fn('detection_recall')} per skill, on the `{RECALL_CONFIG}` run",
    )
    mutation = results.mutation
    if mutation is None:
        doc.add(
            "Not measured: these results were written before the bench measured the goldens' mutation score; "
            "run `ratchet bench mutate` (or `ratchet bench smoke`)."
        )
        return
    run = results.runs.get(RECALL_CONFIG)
    edits = list(run.edits.values()) if run is not None else []
    doc.add(_intro(mutation), "")
    doc.add(*_table(mutation.skills, edits), "")
    doc.add(_relation(mutation.skills, edits, has_run=run is not None))
    notes = _notes(mutation)
    if notes:
        doc.add("", *notes)


def _intro(mutation: MutationRun) -> str:
    if mutation.limit is None:
        limit = "every mutant the operators make"
    else:
        each = f" ({mutation.limit // 6} of each where the operators make that many)" if mutation.limit >= 6 else ""
        limit = (
            f"at most {mutation.limit} mutants per skill, taken in turn from each class{each}, to keep the smoke's "
            "extra time modest; `ratchet bench mutate --all` checks every mutant"
        )
    return (
        f"`{mutation.command}`: `ratchet mutate` over the shipped goldens, in a "
        "scratch repository holding the shipped skills, tasks, world and goldens. Each mutant is one deliberate "
        "breakage of a skill's SKILL.md, labeled with the regression class it stands for and gated by the normal "
        f"check (`{mutation.config}`); **killed** when a replayed golden noticed it. Seed {mutation.seed}; {limit}. "
        f"Beside it, the `{RECALL_CONFIG}` run's detection recall on the same skill's labeled regression edits "
        "(decided BLOCK or WARN; per class, edits detected / labeled). The mutants are small deterministic "
        "breakages, not the bench's injected regressions: the two share the R1-R6 taxonomy, not their edits."
    )


def _score(killed: int, checked: int) -> str:
    return f"{pct(killed / checked)} ({killed}/{checked})" if checked else "n/a"


def _count(killed: int, checked: int) -> str:
    return f"{killed}/{checked}" if checked else "-"


def _regressions(edits: Sequence[ScoredEdit], skills: Sequence[str]) -> list[ScoredEdit]:
    wanted = set(skills)
    return [e for e in edits if e.skill in wanted and e.expected_decision == "BLOCK"]


def _detected(edits: Sequence[ScoredEdit], edit_type: str | None = None) -> tuple[int, int]:
    group = [e for e in edits if edit_type is None or e.type == edit_type]
    return sum(1 for e in group if e.verdict.decision in DETECTED), len(group)


def _table(skills: Sequence[MutationSkill], edits: Sequence[ScoredEdit]) -> list[str]:
    # Per class only where both measures have one: `ratchet mutate` has no R7 (fault handling) operator.
    columns = [
        "skill",
        "mutation score",
        *(f"{t} killed" for t in MUTANT_CLASSES),
        "detection recall",
        *(f"{t} detected" for t in MUTANT_CLASSES),
    ]
    rows = [f"| {' | '.join(columns)} |", f"|{'---|' * len(columns)}"]
    for name, group in [(s.skill, [s]) for s in skills] + [("all", list(skills))]:
        mine = _regressions(edits, [s.skill for s in group])
        killed, checked = sum(s.killed for s in group), sum(s.checked for s in group)
        cells = [name, _score(killed, checked)]
        for edit_type in MUTANT_CLASSES:
            found = [s.by_class[edit_type] for s in group if edit_type in s.by_class]
            cells.append(_count(sum(c.killed for c in found), sum(c.checked for c in found)))
        cells.append(_score(*_detected(mine)))
        cells += [_count(*_detected(mine, edit_type)) for edit_type in MUTANT_CLASSES]
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def _relation(skills: Sequence[MutationSkill], edits: Sequence[ScoredEdit], *, has_run: bool) -> str:
    """One sentence: how the two measures relate over the skills, with its caveat."""
    if not has_run:
        return f"How the two relate: not computed, no `{RECALL_CONFIG}` run in these results."
    points = [
        (s.killed / s.checked, recall)
        for s in skills
        if s.checked and (recall := detection_recall(_regressions(edits, [s.skill]))["overall"]) is not None
    ]
    if len(points) < 3:
        return f"How the two relate: not computed, {len(points)} skill(s) with both measures (a rank needs 3)."
    scores, recalls = [p[0] for p in points], [p[1] for p in points]
    n = len(points)
    if len(set(recalls)) == 1:
        return (
            f"How the two relate: they cannot be ranked against each other here, since the {RECALL_CONFIG} run's "
            f"detection recall is {pct(recalls[0])} on all {n} skills while the mutation score ranges from "
            f"{pct(min(scores))} to {pct(max(scores))}; the bench keeps an injected regression only when replaying "
            "it makes a golden diverge, so its recall measures the gate once the goldens notice an edit, while the "
            "mutation score measures whether they notice it at all."
        )
    if len(set(scores)) == 1:
        return (
            f"How the two relate: they cannot be ranked against each other here, since the mutation score is "
            f"{pct(scores[0])} on all {n} skills while detection recall ranges from {pct(min(recalls))} to "
            f"{pct(max(recalls))}."
        )
    return (
        f"How the two relate: Spearman's rank correlation of mutation score and detection recall over the {n} "
        f"skills is {spearman(scores, recalls):+.2f}; with {n} points (and ties) it shows a direction at most, "
        "not a measurement."
    )


def _notes(mutation: MutationRun) -> list[str]:
    notes = []
    if mutation.dropped_equivalent:
        notes.append(
            f"- {mutation.dropped_equivalent} equivalent mutant(s) dropped before running (no change after "
            "normalisation)."
        )
    errors = sum(s.errors for s in mutation.skills)
    unchecked = sum(s.unchecked for s in mutation.skills)
    if errors or unchecked:
        notes.append(
            f"- {errors} mutant(s) whose check failed and {unchecked} left unchecked are in no score: "
            f"re-run `{mutation.command}`."
        )
    return notes


def _ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for i in order[start : end + 1]:
            ranks[i] = (start + end) / 2 + 1
        start = end + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Spearman's rho: Pearson's correlation of the (tie-averaged) ranks. Both samples must vary."""
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / math.sqrt(vx * vy)
