"""The audit's rules on hand-built recordings: every named item acted on, no decoy touched, more than wording."""

from __future__ import annotations

from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import SkillRef, ToolCall, Trace
from ratchet.taskgen.audit import audit_recording
from ratchet.taskgen.expand import Generated
from ratchet.taskgen.templates import Item

PROMPT = "Please triage #102 and #101 in acme/widgets. Leave #103 alone."


def _generated() -> Generated:
    task = Task(id="t-h2d1-s0-1", prompt=PROMPT, skill="github-triage")
    return Generated(
        task=task,
        template="t",
        horizon=2,
        distractors=1,
        edge_case=False,
        variant=1,
        seed=0,
        items=[Item(value=102, shown="#102"), Item(value=101, shown="#101")],
        decoys=[Item(value=103, shown="#103")],
    )


def _call(index: int, name: str, effect: str, number: int) -> ToolCall:
    return ToolCall(
        index=index,
        name=name,
        arguments={"repo": "acme/widgets", "number": number},
        effect=effect,  # type: ignore[arg-type]
    )


def _trace(calls: list[ToolCall], answer: str = "Triaged.") -> Trace:
    return Trace(
        task_id="t-h2d1-s0-1",
        prompt=PROMPT,
        seed=1,
        frozen_time="2026-10-15T09:00:00Z",
        skills_fired=[SkillRef(name="github-triage", content_hash="c", substance_hash="s")],
        tool_calls=calls,
        final_output=answer,
    )


def _reasons(calls: list[ToolCall], answer: str = "Triaged.") -> list[str]:
    return audit_recording(_generated(), _trace(calls, answer), []).reasons


def test_a_recording_that_acts_on_every_item_and_reads_a_decoy_is_kept() -> None:
    calls = [
        _call(0, "github_get_issue", "read", 102),
        _call(1, "github_add_label", "write", 102),
        _call(2, "github_get_issue", "read", 103),  # looking at the decoy is not acting on it
        _call(3, "github_add_label", "write", 101),
    ]
    assert _reasons(calls) == []


def test_a_named_item_no_call_touches_is_rejected_by_name() -> None:
    calls = [_call(0, "github_get_issue", "read", 102), _call(1, "github_add_label", "write", 102)]
    assert _reasons(calls) == ["no call names item #101: the recording did not act on it"]


def test_a_decoy_in_a_side_effecting_call_is_rejected_by_name() -> None:
    calls = [
        _call(0, "github_add_label", "write", 102),
        _call(1, "github_add_label", "write", 101),
        _call(2, "github_comment", "send", 103),
    ]
    assert _reasons(calls) == ["decoy #103 is in the arguments of github_comment (call 2, a send)"]


def test_a_recording_without_a_tool_call_is_rejected_whatever_it_answers() -> None:
    assert _reasons([], "I triaged both issues.") == [
        "no call names item #102: the recording did not act on it",
        "no call names item #101: the recording did not act on it",
        "it differs from a do-nothing agent's trace only in wording (output_changed): "
        "its golden could catch no change in what the skill does",
    ]
