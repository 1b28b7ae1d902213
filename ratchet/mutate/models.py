"""What `ratchet mutate` makes and finds, as pydantic models: mutants, their outcomes, the score.

A mutant is one deterministic edit of one skill folder, labeled with the regression class it stands
for (R1-R6, the benchmark's taxonomy). It is killed when a check of the edit decides WARN or BLOCK
because a replayed golden noticed it (a pair's outcome), and survives otherwise: a WARN that comes
only from what the gate could not see (an unseen note) or from the static diff alone is a survivor,
since the goldens did not catch it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.gate.models import ProvenanceDifference
from ratchet.goldens.mutation import MUTANT_CLASSES, MutantClass

MUTATION_SCHEMA_VERSION = 1

__all__ = [
    "MUTANT_CLASSES",
    "MUTATION_SCHEMA_VERSION",
    "Cap",
    "ClassScore",
    "Mutant",
    "MutantClass",
    "MutantOutcome",
    "MutationReport",
    "SkillScore",
    "Status",
]

Status = Literal["killed", "survived", "error", "unchecked"]
Cap = Literal["run", "global"]
"""Which spend cap stopped a check: the run's --budget, or RATCHET_BENCH_USD_CAP over all runs."""


class Mutant(BaseModel):
    """One deliberate breakage of one skill folder."""

    id: str = Field(description="Stable: <skill>/<operator>-<n>, the same on every run with the same seed.")
    skill: str
    mutant_class: MutantClass = Field(description="The regression class it stands for (R1-R6).")
    operator: str = Field(description="Which operator made it, e.g. delete-step, negate-rule.")
    description: str = Field(description="One line: what the mutant changes, where (file:line).")
    files: dict[str, str] = Field(
        description="Changed files of the skill folder, path relative to the folder -> the whole new text."
    )
    diff: str = Field(default="", description="A unified diff of the change, for review.")


class MutantOutcome(BaseModel):
    """What the check said about one mutant."""

    mutant: Mutant
    status: Status
    decision: Literal["PASS", "WARN", "BLOCK"] | None = None
    reason: str = Field(description="One line: which golden caught it and how, or why it survived.")
    caught_by: list[str] = Field(default_factory=list, description="Task ids of the pairs that noticed it.")
    cost_usd: float = Field(
        default=0.0,
        exclude=True,
        description="What its check spent in this run; not written: a rerun served from the cache costs $0 "
        "and must write the same bytes.",
    )
    stopped_by: Cap | None = Field(
        default=None, exclude=True, description="Unchecked: which spend cap stopped it (the run's report says it)."
    )
    unlike: list[ProvenanceDifference] = Field(
        default_factory=list,
        exclude=True,
        description="Every pair its check replayed was recorded otherwise than replayed: how (the report says it once).",
    )


class ClassScore(BaseModel):
    """Killed over checked for one skill and one class (checked = killed + survived)."""

    mutant_class: MutantClass
    killed: int = 0
    survived: int = 0

    @property
    def checked(self) -> int:
        return self.killed + self.survived


class SkillScore(BaseModel):
    skill: str
    killed: int = 0
    survived: int = 0
    errors: int = 0
    unchecked: int = 0
    by_class: list[ClassScore] = Field(default_factory=list)
    unfollowed: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="On the simulator, for a skill it cannot follow: why, and what that means for the score (its "
        "goldens hold what the simulator did, not what the skill asks). Left out of the JSON when null.",
    )


class MutationReport(BaseModel):
    """The whole run: byte-stable for the same project, seed and upstream (no wall-clock time in it)."""

    schema_version: int = MUTATION_SCHEMA_VERSION
    base: str = Field(description="The commit the mutants were made from.")
    seed: int
    simulated: bool
    skills: list[SkillScore] = Field(default_factory=list)
    outcomes: list[MutantOutcome] = Field(default_factory=list)
    dropped_equivalent: int = Field(default=0, description="Mutants with no effect after normalisation, not run.")
    estimate_usd: float = Field(default=0.0, description="The worst-case price announced before the run.")
    cost_usd: float = Field(
        default=0.0,
        exclude=True,
        description="What this run spent (printed, not written: a rerun served from the cache costs $0 and must "
        "write the same bytes).",
    )
    stopped: str | None = Field(
        default=None, description="Why the run stopped early (which spend cap: --budget or the global cap), or null."
    )
    provenance: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set when every golden the run replayed was recorded otherwise than replayed (another upstream, "
        "model, harness or tool protocol): the score is not like for like. Left out of the JSON when null.",
    )
