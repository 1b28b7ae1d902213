"""The benchmark's data on disk: edits, labels, reviews and results, all versioned.

bench/edits/<edit_id>.json      one Edit each (the edited SKILL.md, and a world overlay for D1)
labels/labels.json              LabelsFile: generated labels, one per edit
labels/reviews.json             ReviewsFile: human review verdicts, kept across rebuilds
bench/results/<dir>/          results.json and friends: see ratchet.bench.data.results
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from ratchet.core.jsonio import canonical_dumps, digest
from ratchet.gate.models import Decision, Outcome

BENCH_SCHEMA_VERSION = 1

EditType = Literal["R1", "R2", "R3", "R4", "R5", "R6", "R7", "N0", "D1", "F0"]
REGRESSION_TYPES: tuple[str, ...] = ("R1", "R2", "R3", "R4", "R5", "R6", "R7")
CONTROL_TYPES: tuple[str, ...] = ("N0", "D1", "F0")
"""Edits expected to PASS: N0 cosmetic, D1 world drift, F0 fault handling refactored but kept."""
STRIPPED_SUFFIX = "_faults_stripped"
"""A run over goldens re-recorded without their seeded faults is stored as <config><suffix> (bench run --strip-faults)."""


class Edit(BaseModel):
    """One labeled skill edit: the whole edited SKILL.md, plus a world overlay for D1."""

    schema_version: int = BENCH_SCHEMA_VERSION
    id: str = Field(description="<skill>.<type>.<variant>, e.g. github-triage.R3.1")
    skill: str
    type: EditType
    variant: int = Field(ge=1)
    description: str = Field(description="What the edit does, for humans. Never shown to a judge.")
    skill_md: str = Field(description="The edited SKILL.md, whole.")
    base_content_hash: str = Field(description="Content hash of the SKILL.md the edit starts from.")
    world_overlay: dict[str, Any] | None = Field(default=None, description="D1: YAML data merged over the world.")
    fixtures: dict[str, Any] = Field(default_factory=dict, description="D1: search fixtures reporting moved facts.")
    source: Literal["template", "injector", "control"] = "template"
    tries: int = 1

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


def edit_hash(edit: Edit) -> str:
    """sha256 of the edit's canonical JSON: what a review is pinned to."""
    return digest(edit.model_dump(mode="json"))


class Review(BaseModel):
    """A human reviewer's verdict on one label. A disagreement overrides what metrics score against."""

    edit_id: str
    edit_hash: str = Field(
        description="sha256 of the edit's JSON when reviewed; a changed edit makes the review stale."
    )
    verdict: Literal["agree", "disagree"]
    decision: Decision | None = Field(default=None, description="The reviewer's decision when disagreeing.")
    pairs: dict[str, Outcome] = Field(default_factory=dict, description="Pair outcomes the reviewer corrected.")
    reviewer: str = ""
    note: str = ""


class Label(BaseModel):
    """Ground truth for one edit, from construction."""

    edit_id: str
    type: EditType
    skill: str
    affected_goldens: list[str]
    expected_decision: Decision
    expected_pairs: dict[str, Outcome] = Field(default_factory=dict)
    review_required: bool = False
    edit_hash: str = Field(default="", description="edit_hash() of the edit this label was built for.")


class LabelsFile(BaseModel):
    schema_version: int = BENCH_SCHEMA_VERSION
    labels: list[Label]


class Dropped(BaseModel):
    """A regression variant the build could not keep, and why (one reason per try)."""

    edit_id: str
    skill: str
    type: EditType
    variant: int
    reasons: list[str]


class ReviewsFile(BaseModel):
    schema_version: int = BENCH_SCHEMA_VERSION
    reviews: list[Review] = Field(default_factory=list)
