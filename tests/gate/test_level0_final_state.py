"""Level 0's state diff: the world a replay left behind against the golden's, order-free (ratchet.gate.state_diff)."""

from __future__ import annotations

from typing import Any

from ratchet.config.gate import GateConfig, parse_gate_config
from ratchet.gate.judge_prompt import judge_sections
from ratchet.gate.level0 import level0_findings, settled_by_level0
from ratchet.gate.state_diff import describe_effect
from ratchet.goldens.trace import StateChange, ToolCall, Trace
from ratchet.llm.fake import ScriptedModel
from tests.helpers.sim_run import TASKS, run
from tests.helpers.trigger_models import answer, tool_call

DANA = {"to": "dana.kim@example.com", "subject": "Status", "body": "All green."}
LI = {"to": "li.wei@example.com", "subject": "Status", "body": "All green."}
RAJ = {"to": "raj.patel@example.com", "subject": "Status", "body": "All green."}


def recorded(*sends: dict[str, str], text: str = "Sent the status mails.") -> Trace:
    """A run of the minimal runner whose agent sends `sends` in that order, then answers `text`."""
    model = ScriptedModel(responses=[*(tool_call("email_send", **send) for send in sends), answer(text)], echo=False)
    trace = run(TASKS["canary-01"], model=model)
    assert trace.status == "ok", trace.error
    return trace


def test_two_runs_reaching_the_same_final_state_by_different_orders_have_no_state_finding() -> None:
    golden, replay = recorded(DANA, LI), recorded(LI, DANA)
    assert golden.final_state is not None and golden.final_state == replay.final_state
    findings = level0_findings(golden, replay)
    assert findings and "state_changed" not in [f.kind for f in findings]  # the calls moved; the world did not


def test_the_same_answer_with_a_different_final_state_names_the_path() -> None:
    golden, replay = recorded(DANA, LI), recorded(DANA, RAJ)
    assert golden.final_output == replay.final_output
    state = [f for f in level0_findings(golden, replay) if f.kind == "state_changed"]
    assert [(f.severity, f.path) for f in state] == [("diff", "email.outbox")]
    assert "li.wei@example.com" in state[0].detail and "raj.patel@example.com" in state[0].detail
    assert state[0].detail.startswith("final state of email.outbox differs: golden added ")


def call(index: int, name: str, changes: list[StateChange], **arguments: Any) -> ToolCall:
    return ToolCall(index=index, name=name, arguments=arguments, effect="write", state_changes=changes)


def trace(calls: list[ToolCall], **kw: Any) -> Trace:
    return Trace(task_id="t1", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z", tool_calls=calls, **kw)


WRITE_A = [StateChange(path="files.notes.md", before=None, after="a")]
WRITE_B = [StateChange(path="files.notes.md", before=None, after="b")]


def test_identical_calls_that_left_another_world_are_a_state_finding_only() -> None:
    golden = trace([call(0, "files_write", WRITE_A, path="notes.md")])
    replay = trace([call(0, "files_write", WRITE_B, path="notes.md")])
    findings = level0_findings(golden, replay)
    assert [(f.kind, f.detail) for f in findings] == [
        ("state_changed", "final state of files.notes.md differs: golden None -> 'a'; replay None -> 'b'")
    ]
    assert settled_by_level0(findings, hard_fails_decide=True) is None  # a diff: judged, not settled


def test_a_stored_final_state_is_compared_and_a_golden_without_one_is_computed() -> None:
    golden = trace([call(0, "files_write", WRITE_A, path="notes.md")])  # recorded before final_state was kept
    replay = trace([call(0, "files_write", WRITE_A, path="notes.md")]).with_totals()
    assert replay.final_state is not None and golden.final_state is None
    assert level0_findings(golden, replay) == []


def test_state_diff_off_leaves_no_state_finding_and_the_config_reads_it() -> None:
    golden = trace([call(0, "files_write", WRITE_A, path="notes.md")])
    replay = trace([call(0, "files_write", WRITE_B, path="notes.md")])
    assert level0_findings(golden, replay, state_diff=False) == []
    assert GateConfig().state_diff is True
    assert parse_gate_config({"schema_version": 1, "state_diff": False}, source="c.yaml").state_diff is False


def test_judges_see_the_state_diff_beside_the_trace_diff_only_when_the_states_differ() -> None:
    golden = trace([call(0, "files_write", WRITE_A, path="notes.md")])
    replay = trace([call(0, "files_write", WRITE_B, path="notes.md")])
    findings = level0_findings(golden, replay)
    shown = judge_sections("p", golden, replay, findings)
    assert shown["trace_diff"] == (
        "(tool calls identical)\n\nfinal state differs (golden -, replay +):\n"
        "- files.notes.md: None -> 'a'\n+ files.notes.md: None -> 'b'"
    )
    assert "final state" not in judge_sections("p", golden, golden, [])["trace_diff"]
    assert "final state" not in judge_sections("p", golden, replay, findings, state_diff=False)["trace_diff"]


def test_state_is_compared_as_canonical_json_overlaps_and_nan_included() -> None:
    def kinds(golden: list[StateChange], replay: list[StateChange]) -> list[str]:
        made, again = (
            trace([call(n, "crm_set", [c], n=n) for n, c in enumerate(cs)]).with_totals() for cs in (golden, replay)
        )
        return [f.kind for f in level0_findings(Trace.model_validate_json(made.model_dump_json()), again)]

    pending = StateChange(path="crm.acct.status", before="open", after="pending")
    closed = StateChange(path="crm.acct", before={"status": "pending"}, after={"status": "closed"})
    assert "state_changed" in kinds([pending], [pending, closed])  # the replay left it closed
    assert "state_changed" in kinds(
        [StateChange(path="a.ok", before=None, after=True)], [StateChange(path="a.ok", before=None, after=1)]
    )
    nan = StateChange(path="fx.rate", before=1.0, after=float("nan"))
    assert kinds([nan], [nan]) == []  # a golden read back from its JSON file against the same replay
    assert describe_effect({"to": None}) == "(absent) -> None"  # a key set to null where there was none
