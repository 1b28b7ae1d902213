"""A state_changed finding is known to vary when the calls that wrote its path differ only where the golden is."""

from __future__ import annotations

from ratchet.gate.cascade import concrete_difference
from ratchet.gate.level0 import level0_findings
from ratchet.gate.variation import known_variation_text, mark_known, variation_parts
from ratchet.goldens.noise import NoiseRecord
from ratchet.goldens.trace import StateChange, ToolCall, Trace


def run(body: str, to: str = "a@x.io") -> Trace:
    mail = {"to": to, "subject": "brief", "body": body}
    call = ToolCall(
        index=0,
        name="email_send",
        arguments=mail,
        effect="send",
        result={"sent": True},
        state_changes=[StateChange(path="email.outbox", before=[], after=[mail])],
    )
    return Trace(
        task_id="t", prompt="p", seed=1, frozen_time="2026-01-01T00:00:00Z", tool_calls=[call], final_output="sent"
    ).with_totals()


def record(**varying: int) -> NoiseRecord:
    return NoiseRecord(task_id="t", golden_hash="h", agent="a", simulated=True, repeats=5, differed=3, varying=varying)


BODY = {"argument: email_send.body": 3}


def test_a_send_whose_body_is_known_to_vary_leaves_no_concrete_difference() -> None:
    golden, replay = run("Hi, the brief is ready."), run("Hello, your brief is ready.")
    findings = mark_known(level0_findings(golden, replay), golden, replay, record(**BODY))
    assert [(f.kind, f.known_to_vary) for f in findings] == [("args_changed", True), ("state_changed", True)]
    assert concrete_difference(findings) is None
    assert known_variation_text(record(**BODY), variation_parts(golden, replay)).endswith(
        "Every difference in this replay is in a part known to vary."
    )


def test_a_state_difference_outside_the_known_variation_stays_concrete() -> None:
    golden, replay = run("Hi.", to="a@x.io"), run("Hi.", to="b@x.io")
    findings = mark_known(level0_findings(golden, replay), golden, replay, record(**BODY))
    assert not any(f.known_to_vary for f in findings)
    same_calls = replay.model_copy(update={"tool_calls": golden.tool_calls, "final_state": replay.final_state})
    assert variation_parts(golden, same_calls) == ["state: email.outbox"]  # no call explains it
