"""A reviewer's click, applied through exactly the functions the terminal uses.

pending: accept is `bless_pending(project, [task_id])`, what `ratchet bless TASK_ID` runs; a
trace bless refuses stays in pending/ and the refusal is the answer; a thin one's (ratchet.bless.evidence)
ends with the command that blesses it anyway, which the page does not run: blessing a golden that shows
nothing of its skill is a deliberate act, taken in the terminal. Reject blesses nothing and
deletes nothing: bless's own rule is that what is not blessed stays in pending/ (its refusals
do the same), and the next `ratchet record` of the task overwrites it. Skip does nothing.
labels: accept is `record_review(agree=True)` and reject `record_review(agree=False,
decision=...)`, what `ratchet bench label` (and its a/r keys) runs. verdict: read only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.bench.build.label_review import DECISIONS, record_review
from ratchet.bench.data.dataset import BenchPaths
from ratchet.bless.evidence import REFUSED
from ratchet.bless.record import bless_pending
from ratchet.config.project import Project
from ratchet.core.errors import InputError
from ratchet.gate.models import Decision
from ratchet.review.collect import labels_page, pending_page, verdict_page
from ratchet.review.models import ACTIONS, ReviewMode, ReviewPage, accept_thin_command


class DecideRequest(BaseModel):
    """What a button posts."""

    item: str
    action: str
    decision: str | None = None


class DecideAnswer(BaseModel):
    """What the page shows next to the buttons; `state` is the item's new state."""

    ok: bool
    state: str = Field(description="blessed, rejected, skipped, agreed, overridden, or refused.")
    message: str


@dataclass(frozen=True)
class ReviewSession:
    """What one `ratchet review` reviews: the page is rebuilt on every load, so it shows what is on disk now."""

    mode: ReviewMode
    project: Project
    build: Callable[[], ReviewPage]
    reviewer: str = ""

    def decide(self, request: DecideRequest) -> DecideAnswer:
        """Apply one action; InputError for an action, item or decision this page does not offer."""
        if request.action not in ACTIONS:
            raise InputError(f"unknown action {request.action!r}: one of {', '.join(ACTIONS)}")
        if self.mode == "verdict":
            raise InputError("a verdict page is read only: there is nothing to bless in a verdict")
        if request.action == "skip":
            return DecideAnswer(ok=True, state="skipped", message=f"skipped {request.item}")
        if self.mode == "pending":
            return self._pending(request)
        return self._label(request)

    def _pending(self, request: DecideRequest) -> DecideAnswer:
        if request.action == "reject":
            return DecideAnswer(
                ok=True,
                state="rejected",
                message=(f"not blessed: {request.item} stays in pending/ until `ratchet record` overwrites it"),
            )
        result = bless_pending(self.project, [request.item])
        if result.refused:
            refusal = result.refused[0]
            if refusal.endswith(REFUSED):  # thin: bless's own words, then the command that blesses it anyway
                refusal += f": {accept_thin_command(request.item)}"
            return DecideAnswer(ok=False, state="refused", message=refusal)
        shown = (
            result.blessed[0].relative_to(self.project.root)
            if result.blessed[0].is_relative_to(self.project.root)
            else result.blessed[0]
        )
        return DecideAnswer(ok=True, state="blessed", message=f"blessed into {shown.as_posix()}")

    def _label(self, request: DecideRequest) -> DecideAnswer:
        paths = BenchPaths(self.project)
        if request.action == "accept":
            record_review(paths, request.item, agree=True, reviewer=self.reviewer)
            return DecideAnswer(ok=True, state="agreed", message=f"recorded: {request.item} agree")
        if request.decision not in DECISIONS:
            raise InputError(f"reject needs a decision, one of {', '.join(DECISIONS)}")
        decision: Decision = request.decision
        record_review(paths, request.item, agree=False, decision=decision, reviewer=self.reviewer)
        return DecideAnswer(ok=True, state="overridden", message=f"recorded: {request.item} disagree -> {decision}")


def pending_session(project: Project, *, reviewer: str = "") -> ReviewSession:
    return ReviewSession(mode="pending", project=project, build=lambda: pending_page(project), reviewer=reviewer)


def labels_session(project: Project, *, reviewer: str = "") -> ReviewSession:
    return ReviewSession(
        mode="labels", project=project, build=lambda: labels_page(BenchPaths(project)), reviewer=reviewer
    )


def verdict_session(project: Project, verdict_file: Path, replays_file: Path | None = None) -> ReviewSession:
    return ReviewSession(
        mode="verdict", project=project, build=lambda: verdict_page(project, verdict_file, replays_file)
    )
