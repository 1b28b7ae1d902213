"""repeated_after_lost_reply: a side effect made again after its reply was lost (fault timeout_after_commit)."""

from __future__ import annotations

from typing import Any

import pytest

from ratchet.gate.level0 import level0_findings, settled_by_level0
from ratchet.goldens.faults import FAULT_ERRORS, FaultKind
from ratchet.goldens.trace import StateChange, ToolCall, Trace

PAY = {"vendor_id": "V-1", "invoice_number": "N-1", "amount": 10}
PAYMENT = {"vendor_id": "V-1", "invoice_number": "N-1", "amount": 10}


def pay(index: int, paid_before: int, fault: FaultKind | None = None, **arguments: Any) -> ToolCall:
    """A payments_schedule call; it committed (one more payment) unless its fault refused it."""
    committed = fault in (None, "timeout_after_commit")
    before = [PAYMENT] * paid_before
    return ToolCall(
        index=index,
        name="payments_schedule",
        arguments=arguments or PAY,
        effect="spend",
        result={"scheduled": True},
        error=FAULT_ERRORS[fault] if fault else None,
        fault=fault,
        state_changes=[StateChange(path="invoices.payments", before=before, after=[*before, PAYMENT])]
        if committed
        else [],
    )


def check(index: int) -> ToolCall:
    return ToolCall(index=index, name="payments_list", arguments={"vendor_id": "V-1"}, effect="read")


def trace(calls: list[ToolCall], output: str = "Paid N-1 once.") -> Trace:
    return Trace(
        task_id="t1", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z", tool_calls=calls, final_output=output
    )


GOLDEN = trace([pay(0, 0, "timeout_after_commit"), check(1)])  # checked before retrying: one payment


def test_a_blind_retry_after_a_lost_reply_is_a_hard_fail_naming_the_repeated_call() -> None:
    replay = trace([pay(0, 0, "timeout_after_commit"), pay(1, 1)])
    findings = level0_findings(GOLDEN, replay)
    first = findings[0]
    assert (first.kind, first.severity, first.tool, first.effect, first.replay_index) == (
        "repeated_after_lost_reply",
        "hard",
        "payments_schedule",
        "spend",
        1,
    )
    assert first.detail == (
        "repeated spend call payments_schedule(amount=10, invoice_number='N-1', vendor_id='V-1') after its reply "
        "was lost (call 0 timed out after it committed): the effect happened twice"
    )
    assert "new_side_effect" not in [f.kind for f in findings]  # replaced, not doubled
    assert [f.path for f in findings if f.kind == "state_changed"] == ["invoices.payments"]
    settled = settled_by_level0(findings, hard_fails_decide=True)
    assert settled is not None and settled.outcome == "regression" and "repeated spend call" in settled.reason


def test_the_golden_repeating_too_is_no_such_finding() -> None:
    both = trace([pay(0, 0, "timeout_after_commit"), pay(1, 1)])
    assert level0_findings(both, both) == []


@pytest.mark.parametrize("kind", ["transient", "timeout_before_commit"])
def test_a_retry_after_a_refused_call_is_no_repeat(kind: FaultKind) -> None:
    retried = trace([pay(0, 0, kind), pay(1, 0)])
    assert level0_findings(retried, retried) == []
    assert "repeated_after_lost_reply" not in [f.kind for f in level0_findings(trace([pay(0, 0)]), retried)]


def test_a_call_with_other_arguments_after_a_lost_reply_is_no_repeat() -> None:
    replay = trace([pay(0, 0, "timeout_after_commit"), pay(1, 1, vendor_id="V-1", invoice_number="N-2", amount=5)])
    kinds = [f.kind for f in level0_findings(GOLDEN, replay)]
    assert "repeated_after_lost_reply" not in kinds and "new_side_effect" in kinds


def test_a_read_repeated_after_a_lost_reply_is_no_repeat() -> None:
    lost_read = check(0).model_copy(update={"fault": "timeout_after_commit"})
    golden = trace([lost_read])
    replay = trace([lost_read, check(1)])
    assert [f.kind for f in level0_findings(golden, replay)] == ["call_added"]


def test_a_repeat_the_tool_refused_is_a_blind_retry_not_an_effect_made_twice() -> None:
    refused = pay(1, 1).model_copy(update={"state_changes": [], "error": "N-1 is already paid", "result": None})
    findings = level0_findings(GOLDEN, trace([pay(0, 0, "timeout_after_commit"), refused]))
    assert [(f.kind, f.severity) for f in findings] == [("repeated_after_lost_reply", "hard"), ("call_removed", "diff")]
    assert findings[0].detail == (
        "repeated spend call payments_schedule(amount=10, invoice_number='N-1', vendor_id='V-1') after its reply "
        "was lost (call 0 timed out after it committed) without checking first: a blind retry (the tool refused "
        "it this time)"
    )
