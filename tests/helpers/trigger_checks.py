"""A hand-built TriggerCheck with one query of each outcome (and one with a family of queries worse), for the
output and review page tests."""

from __future__ import annotations

from typing import Any

from ratchet.gate.models import Verdict
from ratchet.triggers.compare import FamilyChange, QueryChange
from ratchet.triggers.verdict import TriggerCheck

GH = "github-triage"


def query(query_id: str, outcome: str, **update: Any) -> QueryChange:
    fields: dict[str, Any] = {
        "query_id": query_id,
        "prompt": f"prompt of {query_id}",
        "skill": GH,
        "should_fire": True,
        "base_fires": 5,
        "base_n": 5,
        "head_fires": 5,
        "head_n": 5,
        "p_value": 1.0,
        "adjusted_p": None,
        "outcome": outcome,
    }
    return QueryChange.model_validate({**fields, **update})


def mixed_check(prompt: str = "Summarise the release notes") -> TriggerCheck:
    """Five queries in file order: same, errors, better, unsettled, worse (R5, with `prompt`)."""
    return TriggerCheck(
        skills=[GH],
        neighbours=["fx-expense-converter"],
        repeats=5,
        alpha=0.05,
        queries=[
            query(f"{GH}:fire:1", "same"),
            query(f"{GH}:fire:2", "errors", head_fires=3, head_n=3, head_errors=2, p_value=None),
            query("canary:not:1", "better", skill=None, should_fire=False, base_fires=2, head_fires=0, p_value=1.0),
            query(f"{GH}:fire:3", "unsettled", head_fires=2, p_value=0.0833, adjusted_p=0.167),
            query(
                f"{GH}:not:1",
                "worse",
                prompt=prompt,
                should_fire=False,
                base_fires=0,
                head_fires=5,
                p_value=1 / 252,
                adjusted_p=2 / 252,
                regression="R5",
            ),
        ],
        cost_usd=0.25,
    )


def family_check() -> TriggerCheck:
    """Three should-fire queries 5/5 -> 0/5 (each unsettled alone) and one that stayed, worse as a family (R6)."""
    moved = [f"{GH}:fire:{i}" for i in (1, 2, 3)]
    queries = [query(q, "unsettled", head_fires=0, p_value=1 / 252, adjusted_p=4 / 252) for q in moved]
    family = FamilyChange(
        skill=GH,
        should_fire=True,
        queries=[*moved, f"{GH}:fire:4"],
        moved=moved,
        base_fires=20,
        base_n=20,
        head_fires=5,
        head_n=20,
        p_value=(1 / 252) ** 3,
        adjusted_p=4 * (1 / 252) ** 3,
        outcome="worse",
        regression="R6",
    )
    return TriggerCheck(
        skills=[GH],
        repeats=5,
        alpha=0.05,
        queries=[*queries, query(f"{GH}:fire:4", "same")],
        families=[family],
    )


def verdict_with_triggers(check: TriggerCheck | None = None) -> Verdict:
    return Verdict(
        base="a" * 40,
        head="b" * 40,
        skills_changed=[GH],
        decision="BLOCK",
        summary="1 trigger query(ies) worse",
        triggers=check if check is not None else mixed_check(),
    )
