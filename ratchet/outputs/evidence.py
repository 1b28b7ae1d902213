"""The lines every format opens with for the evidence an edit changes (Verdict.evidence_changed).

The summary counts them per skill (ratchet.gate.evidence.evidence_notes); these name the tasks,
folded as the reports fold them (`10 tasks: fx-01..10`), one line per kind of change, most serious
first. A line's level says how it is shown: `block` (coverage removed: it floors like a settings
change) and `warn` as what the gate could not check, `note` (evidence added) as plain information.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from ratchet.gate.evidence import (
    EVIDENCE_LABELS,
    coverage_text,
    on_reblessed,
    skill_label,
    skill_note,
)
from ratchet.gate.models import EvidenceChange, Verdict
from ratchet.outputs.grouping import collapse_ids


class EvidenceLine(NamedTuple):
    """One line: `label: text`, at `level`."""

    label: str
    text: str
    level: Literal["block", "warn", "note"]


def evidence_lines(verdict: Verdict) -> list[EvidenceLine]:
    """Coverage removed, then what the edit removes, moves, changes and (as notes) adds, per skill."""
    evidence = verdict.evidence_changed
    lines = (
        [EvidenceLine("coverage removed", coverage_text(evidence.coverage_removed), "block")]
        if evidence.coverage_removed
        else []
    )
    for change in ("removed", "moved", "changed", "added"):
        for kind in ("golden", "noise_record", "task", "mutation_score"):
            group = [c for c in evidence.changes if c.kind == kind and c.change == change]
            if group:
                text = _per_skill(group) + on_reblessed(group, verdict.pairs)
                if change == "added" or kind == "mutation_score":  # a score is ratchet mutate's measure: a note
                    text += " (they take effect once merged)"
                level: Literal["warn", "note"] = "note" if change == "added" or kind == "mutation_score" else "warn"
                lines.append(EvidenceLine(EVIDENCE_LABELS[kind, change], text, level))
    return lines


def _per_skill(group: list[EvidenceChange]) -> str:
    by_skill: dict[tuple[str | None, str], list[EvidenceChange]] = {}
    for change in group:
        by_skill.setdefault((change.skill, skill_note(change)), []).append(change)
    parts = []
    for (skill, note), changes in by_skill.items():
        said = f"{skill_label(skill)}{note}: {collapse_ids([c.task_id for c in changes])}"
        fields = sorted({name for c in changes for name in c.fields})
        if fields:
            said += f" (changed: {', '.join(fields)})"
        kept = [c.task_id for c in changes if c.golden_kept]
        if kept:
            said += (
                f" (golden still there: {collapse_ids(kept)}; remove it too, or every check after merge fails on it)"
            )
        parts.append(said)
    return "; ".join(parts)
