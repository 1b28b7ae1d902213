"""The do-nothing agent: the same skill loaded, no tool call, a fixed answer; Level 0 must tell it apart."""

from __future__ import annotations

from ratchet.goldens.trace import ToolCall, Trace
from ratchet.taskgen.audit import DO_NOTHING_ANSWER, against_nothing


def _trace(calls: list[ToolCall], answer: str) -> Trace:
    return Trace(
        task_id="t", prompt="p", seed=1, frozen_time="2026-10-15T09:00:00Z", tool_calls=calls, final_output=answer
    )


def test_a_recording_that_acts_differs_from_doing_nothing() -> None:
    call = ToolCall(index=0, name="github_add_label", arguments={"label": "bug"}, effect="write")
    assert [line.split(":")[0] for line in against_nothing(_trace([call], DO_NOTHING_ANSWER))] == ["call_removed"]


def test_a_recording_a_do_nothing_agent_matches_has_no_difference() -> None:
    assert against_nothing(_trace([], DO_NOTHING_ANSWER)) == []
    assert [line.split(":")[0] for line in against_nothing(_trace([], "Triaged."))] == ["output_changed"]
