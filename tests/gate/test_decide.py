from __future__ import annotations

from ratchet.gate.decide import decide_edit, no_change
from ratchet.gate.models import Outcome, PairOutcome


def pair(task_id: str, outcome: Outcome) -> PairOutcome:
    return PairOutcome(
        task_id=task_id,
        golden_skill="s",
        selected_because="routed",
        outcome=outcome,
        decided_by="level0",
        reason=f"{outcome} reason",
    )


def test_edit_decisions() -> None:
    assert decide_edit([])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "same")])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "unsure")])[0] == "WARN"
    decision, summary = decide_edit([pair("a", "unsure"), pair("b", "regression")])
    assert decision == "BLOCK" and "b" in summary


def test_error_pairs_fail_closed() -> None:
    assert decide_edit([pair("a", "same"), pair("b", "error")])[0] == "WARN"
    assert decide_edit([pair("a", "same"), pair("b", "error")], on_error="block")[0] == "BLOCK"


def test_no_change_is_a_pass_built_in_one_place() -> None:
    verdict = no_change(base="a", head="b", simulated=True, on_error="block")
    assert (verdict.decision, verdict.summary, verdict.on_error, verdict.pairs) == (
        "PASS",
        "no skill changed",
        "block",
        [],
    )


def test_the_summary_of_unchecked_pairs_names_what_applied_not_a_flag() -> None:
    # on_error="block" is both `--on-error block` (exit 1) and the CLI's default with no flag (exit 3): the summary
    # says what holds in both, not "(on-error block)", which reads as a flag the user may not have given.
    assert decide_edit([pair("a", "same"), pair("b", "error")], on_error="block") == (
        "BLOCK",
        "1 pair(s) could not be checked (unchecked pairs block), first b: error reason",
    )
