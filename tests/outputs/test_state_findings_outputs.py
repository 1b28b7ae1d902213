"""How the reports name Level 0's state findings: one label per world path, a repeated call in the call diff."""

from __future__ import annotations

from ratchet.gate.models import Finding, Verdict
from ratchet.outputs.grouping import finding_groups, finding_label
from ratchet.outputs.markdown import render_markdown
from tests.outputs.verdicts import pair

REPEATED = {
    "kind": "repeated_after_lost_reply",
    "severity": "hard",
    "tool": "payments_schedule",
    "effect": "spend",
    "replay_index": 1,
    "detail": "repeated spend call payments_schedule(amount=10) after its reply was lost (call 0 timed out after it "
    "committed): the effect happened twice",
}


def state(task: str) -> dict[str, str]:
    return {
        "kind": "state_changed",
        "severity": "diff",
        "path": "invoices.payments",
        "detail": f"final state of invoices.payments differs: golden added {{'task': '{task}'}}; replay unchanged",
    }


def test_a_state_finding_is_labelled_by_its_path_and_a_repeat_by_its_tool() -> None:
    assert finding_label(Finding.model_validate(state("a"))) == "final state changed: invoices.payments"
    assert finding_label(Finding.model_validate(REPEATED)) == (
        "side effect repeated after a lost reply: payments_schedule [spend]"
    )
    verdict = Verdict(
        base="b" * 40,
        head="h" * 40,
        skills_changed=["invoice-parser"],
        decision="BLOCK",
        summary="1 regression",
        pairs=[pair(f"inv-0{n}", "regression", findings=[state(str(n))]) for n in (1, 2)],
    )
    assert [(g.label, g.task_ids) for g in finding_groups(verdict)] == [
        ("final state changed: invoices.payments", ("inv-01", "inv-02"))
    ]


def test_markdown_shows_a_repeat_in_the_call_diff_and_a_state_finding_among_the_others() -> None:
    verdict = Verdict(
        base="b" * 40,
        head="h" * 40,
        skills_changed=["invoice-parser"],
        decision="BLOCK",
        summary="1 regression",
        pairs=[pair("inv-01", "regression", findings=[REPEATED, state("1")])],
    )
    text = render_markdown(verdict)
    assert f"+ {REPEATED['detail']}  (replay #1)" in text
    assert "- state_changed (diff): final state of invoices.payments differs" in text
