"""What the check's trigger step decided about one bench edit, kept beside (never inside) its verdict.

Why beside: the verdict a bench edit carries is what the gate decided without trigger queries (the
columns every earlier results file has), so the report can set R5/R6 recall without them against
recall with them (ratchet.bench.report.triggers). The step itself is the check's own
(ratchet.gate.triggers.trigger_check); this is its outcome cut down to what the report reads: the
decision the trigger queries alone come to, and the queries that moved the wrong way.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.core.chat import USD
from ratchet.gate.models import Decision
from ratchet.triggers.verdict import TriggerCheck


class TriggerFlag(BaseModel):
    """One trigger query that moved the wrong way (worse, unsettled) or did not run cleanly (errors).

    Only query_id and outcome are required: summary.json keeps just those two (what the report reads), and the
    rest stay in results.json.
    """

    query_id: str
    outcome: Literal["worse", "unsettled", "errors"]
    skill: str | None = Field(default=None, description="The skill the query is about; null: a canary.")
    should_fire: bool = False
    regression: Literal["R5", "R6"] | None = Field(default=None, description="Set when the outcome is worse.")
    base_fires: int = 0
    base_n: int = 0
    head_fires: int = 0
    head_n: int = 0
    p_value: float | None = None
    adjusted_p: float | None = None


class EditTriggers(BaseModel):
    """The trigger step on one edit: run because the edit changes a catalog entry (R5, R6 descriptions)."""

    decision: Decision = Field(
        description="What the trigger queries alone decide: BLOCK when a query, or a family of them, is worse; WARN "
        "when one is unsettled or errored; else PASS (ratchet.gate.triggers.with_trigger_check's floor)."
    )
    skills: list[str] = Field(description="The skills whose catalog entry the edit changes.")
    repeats: int
    alpha: float
    queries: int = Field(description="Trigger queries run at base and at head.")
    flagged: list[TriggerFlag] = Field(default_factory=list, description="The queries worse, unsettled or errored.")
    cost_usd: USD = 0.0


def _rounded(value: float | None) -> float | None:
    # Six significant digits: enough to read a p-value, and the same bytes whatever the last bits of the sum.
    return None if value is None else float(f"{value:.6g}")


def edit_triggers(check: TriggerCheck) -> EditTriggers:
    """The bench's record of a TriggerCheck."""
    flagged = [
        TriggerFlag(
            query_id=q.query_id,
            skill=q.skill,
            should_fire=q.should_fire,
            outcome=q.outcome,  # of() keeps only these three
            regression=q.regression,
            base_fires=q.base_fires,
            base_n=q.base_n,
            head_fires=q.head_fires,
            head_n=q.head_n,
            p_value=_rounded(q.p_value),
            adjusted_p=_rounded(q.adjusted_p),
        )
        for q in check.of("worse", "unsettled", "errors")
    ]
    decision: Decision = (
        "BLOCK"
        if any(f.outcome == "worse" for f in flagged) or check.families_of("worse")  # a family of queries, too
        else ("WARN" if flagged or check.families_of("unsettled") or check.file_changed else "PASS")
    )
    return EditTriggers(
        decision=decision,
        skills=list(check.skills),
        repeats=check.repeats,
        alpha=check.alpha,
        queries=len(check.queries),
        flagged=flagged,
        cost_usd=round(check.cost_usd, 6),
    )


def compact_triggers(triggers: EditTriggers | None) -> EditTriggers | None:
    """The record as summary.json keeps it: each flagged query's id and outcome only (the report reads no more)."""
    if triggers is None:
        return None
    flagged = [TriggerFlag(query_id=f.query_id, outcome=f.outcome) for f in triggers.flagged]
    return triggers.model_copy(update={"flagged": flagged, "cost_usd": 0.0})
