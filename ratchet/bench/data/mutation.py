"""The shipped goldens' mutation score, as a bench results directory keeps it (results.json and summary.json).

`ratchet bench smoke` (and `ratchet bench mutate`) runs `ratchet mutate` over the benchmark's skills in a
scratch repository holding the shipped goldens (ratchet.bench.run.mutation), and keeps per skill and per
regression class how many mutants the goldens killed out of how many were checked. The report sets it beside
the same skill's detection recall (ratchet.bench.report.mutation). Counts only: no wall-clock time and no
commit sha (the scratch repository is committed anew on every build), so the same data give the same bytes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class KilledChecked(BaseModel):
    """Mutants of one class the goldens killed, out of those checked (killed + survived)."""

    killed: int = Field(default=0, ge=0)
    checked: int = Field(default=0, ge=0)


class MutationSkill(BaseModel):
    """One skill's mutants: killed over checked, in total and per regression class (R1-R6)."""

    skill: str
    killed: int = Field(default=0, ge=0)
    checked: int = Field(default=0, ge=0, description="killed + survived; errors and unchecked are in neither.")
    errors: int = Field(default=0, ge=0, description="Mutants whose check could not be made (never killed).")
    unchecked: int = Field(default=0, ge=0, description="Mutants the spend cap left without a check.")
    by_class: dict[str, KilledChecked] = Field(
        default_factory=dict,
        description="Regression class (R1-R6) -> killed over checked; a class with no mutant is absent.",
    )


class MutationRun(BaseModel):
    """`ratchet mutate` over the bench's shipped goldens: how it was run, and the score per skill."""

    command: str = Field(description="The command that measures it again.")
    config: str = Field(default="cascade", description="The gate config every mutant was checked with.")
    seed: int = 0
    limit: int | None = Field(
        default=None, description="At most this many mutants per skill (taken in turn from each class); null: all."
    )
    simulated: bool = True
    dropped_equivalent: int = Field(default=0, ge=0, description="Mutants with no effect after normalisation, not run.")
    skills: list[MutationSkill] = Field(default_factory=list)


__all__ = ["KilledChecked", "MutationRun", "MutationSkill"]
