"""What the verdict says an edit changes in the gate's own evidence: goldens, noise records, tasks, mutation
scores it adds, changes, moves or removes (computed by ratchet.gate.evidence). Data only; ratchet.gate.models
re-exports every name, so the verdict's vocabulary still reads from one place.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

EvidenceKind = Literal["golden", "noise_record", "task", "mutation_score"]
EvidenceChangeKind = Literal["added", "changed", "moved", "removed"]


class EvidenceChange(BaseModel):
    """One golden, noise record or task the edit adds, changes, moves or removes (ratchet.gate.evidence)."""

    kind: EvidenceKind
    change: EvidenceChangeKind = Field(
        description="moved: a golden or noise record now under another skill's "
        "folder; changed: a golden re-blessed, a record re-measured, a task's fields."
    )
    task_id: str
    skill: str | None = Field(
        description="The skill it belongs to at the head (at the base when removed): the "
        "golden's folder, or the task's expected skill; None: a canary."
    )
    base_skill: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="For a move: the skill folder it was under at the base.",
    )
    skill_changed: bool = Field(
        default=False,
        description="The edit changes that skill too (for a re-bless: "
        "its replays were still compared with the base's goldens, docs/adr/0007).",
    )
    fields: list[str] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="For a changed task: the fields that differ.",
    )
    golden_kept: bool = Field(
        default=False,
        exclude_if=lambda value: not value,
        description="For a removed task: its golden is still at the head, which every check "
        "after merge refuses (a golden for a task not in tasks.yaml).",
    )


class CoverageLoss(BaseModel):
    """A skill that has fewer goldens or tasks at the head than at the base: later edits of it are checked
    against less."""

    skill: str | None = Field(description="The skill (a golden's folder, a task's expected skill); None: canaries.")
    goldens_base: int = Field(ge=0)
    goldens_head: int = Field(ge=0)
    tasks_base: int = Field(ge=0)
    tasks_head: int = Field(ge=0)


class EvidenceChanges(BaseModel):
    """What the edit changes in the gate's evidence: the goldens, noise records and tasks it is compared with.

    The check still compares with the base's (docs/adr/0007); these take effect once merged, so they
    are named on the verdict's first lines (ratchet.gate.decide.with_unchecked).
    """

    changes: list[EvidenceChange] = Field(default_factory=list)
    coverage_removed: list[CoverageLoss] = Field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changes or self.coverage_removed)
