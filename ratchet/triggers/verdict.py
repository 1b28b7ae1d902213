"""What a verdict says about trigger queries (ratchet.gate.triggers, docs/adr/0025).

Data only, in its own module: ratchet.gate.models (the Verdict) holds one field of this type.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from ratchet.core.chat import USD
from ratchet.triggers.compare import FamilyChange, QueryChange


class TriggerCheck(BaseModel):
    """The trigger queries a check ran at base and at head, because the edit changed what the catalog shows."""

    skills: list[str] = Field(
        description="The skills whose catalog entry (name or description) the edit changes, adds or removes."
    )
    neighbours: list[str] = Field(
        default_factory=list, description="Their catalog neighbours, whose queries ran too (ratchet.gate.select)."
    )
    repeats: int = Field(ge=1, description="Runs of each query at each side (the gate config's triggers.repeats).")
    alpha: float = Field(description="The exact test's significance, after Holm's correction over the queries.")
    queries: list[QueryChange] = Field(default_factory=list, description="Each query run, in the base's file order.")
    families: list[FamilyChange] = Field(
        default_factory=list,
        description="Each skill's should-fire queries, its should-not-fire ones, and the canaries, read as one "
        "stratified exact test when at least two of them can vary; in the same Holm correction as the queries.",
    )
    file_changed: str | None = Field(
        default=None,
        description="The base's triggers file when the edit changes it: the check ran the base's queries (at least WARN).",
    )
    cost_usd: USD = 0.0

    def of(self, *outcomes: str) -> list[QueryChange]:
        """The queries with one of `outcomes`, in order."""
        return [query for query in self.queries if query.outcome in outcomes]

    def families_of(self, *outcomes: str) -> list[FamilyChange]:
        """The families with one of `outcomes`, in order."""
        return [family for family in self.families if family.outcome in outcomes]
