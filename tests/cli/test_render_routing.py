"""The terminal table shows a routing change as evidence, not only `--json`."""

from __future__ import annotations

import io

from rich.console import Console

from ratchet.gate.models import Finding, PairOutcome, Verdict
from ratchet.outputs.table import render_verdict


def _pair(
    task_id: str,
    golden: str | None,
    replay: str | None,
    *,
    findings: list[Finding] | None = None,
    outcome: str = "regression",
    reason: str = "The replay differs in substance: routing.",
) -> PairOutcome:
    return PairOutcome.model_validate(
        {
            "task_id": task_id,
            "golden_skill": golden,
            "replay_skill": replay,
            "selected_because": "routed",
            "outcome": outcome,
            "decided_by": "nano",
            "reason": reason,
            "findings": findings or [],
        }
    )


def _rendered(*pairs: PairOutcome) -> list[str]:
    verdict = Verdict(
        base="a" * 40,
        head="b" * 40,
        skills_changed=["fx-expense-converter"],
        decision="BLOCK",
        summary="1 regression",
        pairs=list(pairs),
        goldens_total=5,
        simulated=False,
    )
    out = io.StringIO()
    render_verdict(verdict, Console(file=out, width=200, color_system=None, highlight=False, soft_wrap=False))
    return out.getvalue().splitlines()


def _row(lines: list[str], task_id: str) -> str:
    return next(line for line in lines if line.startswith(task_id))


ROUTED_AWAY = Finding(
    kind="routing_changed", severity="diff", detail="routing changed: fx-expense-converter -> no skill"
)


def test_a_replay_that_fired_another_skill_shows_golden_to_replay_skill() -> None:
    lines = _rendered(_pair("fx-03", "fx-expense-converter", "github-triage"))
    assert _row(lines, "fx-03").split(None, 3)[3] == (
        "fx-expense-converter -> github-triage · The replay differs in substance: routing."
    )


def test_a_routing_changed_finding_shows_it_with_no_skill_spelled_out() -> None:
    lines = _rendered(_pair("fx-04", "fx-expense-converter", None, findings=[ROUTED_AWAY]))
    assert "fx-expense-converter -> no skill · " in _row(lines, "fx-04")
    canary = _rendered(_pair("canary-01", None, "fx-expense-converter", outcome="unsure", reason="judges unsure"))
    assert "no skill -> fx-expense-converter · judges unsure" in _row(canary, "canary-01")


def test_an_unchanged_routing_shows_the_reason_alone() -> None:
    lines = _rendered(_pair("fx-05", "fx-expense-converter", "fx-expense-converter", reason="output differs"))
    assert _row(lines, "fx-05").split(None, 3)[3] == "output differs"
    lookalike = _rendered(_pair("fx-06", "\uff46x-expense-converter", "fx-expense-converter", reason="output differs"))
    assert "->" not in _row(lookalike, "fx-06")  # one skill, two spellings (ratchet.skills.names.skill_key)
