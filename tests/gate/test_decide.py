from __future__ import annotations

from ratchet.gate.decide import decide_edit, level0_outcome
from ratchet.gate.verdict import Finding, Outcome, PairOutcome


def pair(task_id: str, outcome: Outcome) -> PairOutcome:
    return PairOutcome(task_id=task_id, golden_skill="s", selected_because="routed", outcome=outcome,
                       decided_by="level0", reason=f"{outcome} reason")


def test_level0_outcomes() -> None:
    assert level0_outcome([]) == ("same", "identical to the golden")
    hard = Finding(kind="new_side_effect", severity="hard", detail="new send call x()")
    diff = Finding(kind="output_changed", severity="diff", detail="final output differs")
    info = Finding(kind="volatile_changed", severity="info", detail="moved")
    assert level0_outcome([hard, diff])[0] == "regression"
    assert level0_outcome([diff, info])[0] == "unsure"
    assert level0_outcome([info])[0] == "same"
    assert level0_outcome([Finding(kind="replay_error", severity="info", detail="boom")]) == ("error", "replay failed: boom")


def test_edit_decisions() -> None:
    assert decide_edit([])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "same")])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "unsure")])[0] == "WARN"
    decision, summary = decide_edit([pair("a", "unsure"), pair("b", "regression")])
    assert decision == "BLOCK" and "b" in summary


def test_error_pairs_fail_closed() -> None:
    assert decide_edit([pair("a", "same"), pair("b", "error")])[0] == "WARN"
    assert decide_edit([pair("a", "same"), pair("b", "error")], on_error="block")[0] == "BLOCK"
