from __future__ import annotations

from ratchet.gate.decide import decide_edit
from ratchet.gate.models import Outcome, PairOutcome


def pair(task_id: str, outcome: Outcome, confidence: float | None = None, by: str = "super") -> PairOutcome:
    return PairOutcome(
        task_id=task_id,
        golden_skill="s",
        selected_because="routed",
        outcome=outcome,
        decided_by=by,
        reason=f"{outcome} reason",
        confidence=confidence,
    )


def test_judged_regression_blocks_at_or_above_block_confidence() -> None:
    assert decide_edit([pair("a", "regression", 0.7)], block_confidence=0.7)[0] == "BLOCK"
    decision, summary = decide_edit([pair("a", "regression", 0.69)], block_confidence=0.7)
    assert decision == "WARN" and "below block confidence" in summary


def test_level0_regression_has_no_confidence_and_always_blocks() -> None:
    assert decide_edit([pair("a", "regression", None, "level0")], block_confidence=0.99)[0] == "BLOCK"


def test_drift_passes_with_a_rebless_hint() -> None:
    decision, summary = decide_edit([pair("a", "drift", None, "drift"), pair("b", "same", None, "level0")])
    assert decision == "PASS" and "re-bless" in summary


def test_unsure_and_error_warn_and_error_blocks_under_on_error_block() -> None:
    assert decide_edit([pair("a", "unsure", 0.4)], block_confidence=0.7)[0] == "WARN"
    assert decide_edit([pair("a", "error")], on_error="block", block_confidence=0.7)[0] == "BLOCK"
