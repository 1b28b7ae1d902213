"""What the review page shows: data only, so collect, page and serve share one vocabulary."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.gate.models import DriftEvidence, Finding, Opinion, Unseen
from ratchet.goldens.mutation import MutationScore
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.triggers.verdict import TriggerCheck

ReviewMode = Literal["pending", "verdict", "labels"]
RowKind = Literal["same", "changed", "added", "removed"]
Action = Literal["accept", "reject", "skip"]
ACTIONS: tuple[Action, ...] = ("accept", "reject", "skip")


def accept_thin_command(task_id: str) -> str:
    """The terminal command that blesses a thin pending trace: the page offers no one-click for it, because
    blessing a golden that shows nothing of its skill is a deliberate act (docs/adr/0020-thin-goldens.md)."""
    return f"ratchet bless --accept-thin {task_id}"


class AlignedRow(BaseModel):
    """One line of the side-by-side tool-call table: a golden call, its replay counterpart, or one of them alone."""

    kind: RowKind
    golden: ToolCall | None = None
    replay: ToolCall | None = None
    changed_args: list[str] = Field(
        default_factory=list, description="Argument names whose values differ (changed rows)."
    )


class ReviewItem(BaseModel):
    """One thing a person decides about: a pending trace, a verdict's pair, or a queued label."""

    item_id: str = Field(description="Task id (pending, verdict) or edit id (labels): what an action names.")
    title: str
    golden: Trace | None = None
    replay: Trace | None = None
    findings: list[Finding] = Field(default_factory=list)
    outcome: str | None = Field(default=None, description="The pair's outcome (verdict mode).")
    decided_by: str | None = None
    reason: str | None = None
    opinions: list[Opinion] = Field(default_factory=list)
    drift: DriftEvidence | None = None
    notes: list[str] = Field(default_factory=list, description="What could not be shown, and why.")
    unseen: list[Unseen] = Field(
        default_factory=list, description="The page's unseen notes about this item's skills (pending mode)."
    )
    text: str | None = Field(default=None, description="Preformatted evidence (a label's skill diff and labels).")
    thin: str | None = Field(
        default=None,
        description=(
            "Why `ratchet bless` refuses this pending trace as thin (ratchet.bless.evidence), as bless says it; "
            "None when it shows its skill at work."
        ),
    )
    actions: list[Action] = Field(default_factory=list, description="What `--serve` offers for this item.")


class SkillMutation(BaseModel):
    """One edited skill's mutation score as the edit's base keeps it."""

    skill: str
    score: MutationScore | None = Field(default=None, description="None: no score measured at the base.")


class MutationSection(BaseModel):
    """What `ratchet mutate` measured of the edited skills' goldens, read at the edit's base (verdict mode)."""

    base: str = Field(description="The base commit, as a message names it (ratchet.gate.revision_names.label).")
    skills: list[SkillMutation] = Field(default_factory=list, description="In the verdict's changed-skill order.")
    unread: str | None = Field(default=None, description="Why the base's scores could not be read (one line).")


class ReviewPage(BaseModel):
    """Everything one review page shows."""

    mode: ReviewMode
    title: str
    source: str = Field(description="What was reviewed (a folder or a file), as the page names it.")
    summary: str = ""
    items: list[ReviewItem] = Field(default_factory=list)
    unseen: list[Unseen] = Field(
        default_factory=list,
        description=(
            "What a check would warn it could not see (ratchet.gate.unseen): for pending traces, a check of an edit "
            "to their skills once they are blessed; for a verdict, its own."
        ),
    )
    simulated: bool = Field(default=False, description="What is shown came from the simulator (a verdict's own flag).")
    mutation: MutationSection | None = Field(
        default=None, description="The edited skills' mutation scores at the base (a verdict with edited skills)."
    )
    triggers: TriggerCheck | None = Field(
        default=None,
        description="The trigger queries the check ran at base and head (a verdict's own, docs/triggers.md).",
    )

    @property
    def shows_simulated(self) -> bool:
        """The page must carry the SIMULATED banner: the verdict says so, or a trace on it was simulated."""
        traces = [t for item in self.items for t in (item.golden, item.replay) if t is not None]
        return self.simulated or any(t.simulated for t in traces)
