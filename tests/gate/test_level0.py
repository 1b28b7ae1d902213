from __future__ import annotations

from typing import Any

from ratchet.gate.level0 import level0_findings, needs_judging, settled_by_level0
from ratchet.gate.models import Finding
from ratchet.goldens.trace import SkillRef, ToolCall, Trace, VolatileRead


def call(index: int, name: str, effect: str = "read", **arguments: Any) -> ToolCall:
    return ToolCall(index=index, name=name, arguments=arguments, effect=effect)  # type: ignore[arg-type]


def trace(calls: list[ToolCall], output: str = "done", skill: str | None = "github-triage", **kw: Any) -> Trace:
    fired = [SkillRef(name=skill, content_hash="c", substance_hash="s")] if skill else []
    return Trace(
        task_id="t1",
        prompt="p",
        seed=1,
        frozen_time="2026-10-14T16:00:00Z",
        skills_fired=fired,
        tool_calls=calls,
        final_output=output,
        **kw,
    )


BASE = [
    call(0, "github_get_issue", repo="acme/widgets", number=42),
    call(1, "github_add_label", "write", repo="acme/widgets", number=42, label="bug"),
]


def kinds(golden: Trace, replay: Trace) -> list[str]:
    return [f.kind for f in level0_findings(golden, replay)]


def test_identical_traces_have_no_findings() -> None:
    assert level0_findings(trace(BASE), trace(BASE)) == []


def test_changed_argument_on_a_write_is_a_diff_not_a_hard_fail() -> None:
    replay = [BASE[0], call(1, "github_add_label", "write", repo="acme/widgets", number=42, label="defect")]
    findings = level0_findings(trace(BASE), trace(replay))
    assert [f.kind for f in findings] == ["args_changed"]
    assert findings[0].severity == "diff"
    assert "label: 'bug' -> 'defect'" in findings[0].detail


def test_new_side_effecting_call_is_a_hard_fail_named_first() -> None:
    extra = call(2, "github_comment", "send", repo="acme/widgets", number=42, body="hi")
    findings = level0_findings(trace(BASE), trace([*BASE, extra], output="other"))
    assert findings[0].kind == "new_side_effect"
    assert findings[0].severity == "hard"
    assert "github_comment" in findings[0].detail
    assert [f.kind for f in findings[1:]] == ["output_changed"]


def test_a_second_call_of_a_side_effecting_tool_is_new() -> None:
    again = call(2, "github_add_label", "write", repo="acme/widgets", number=42, label="bug")
    assert kinds(trace(BASE), trace([*BASE, again])) == ["new_side_effect"]


def test_new_read_call_and_removed_call_are_diffs() -> None:
    replay = [BASE[0], call(1, "github_list_labels", repo="acme/widgets")]
    found = kinds(trace(BASE), trace(replay))
    assert sorted(found) == ["call_added", "call_removed"]


def test_routing_change_is_reported() -> None:
    assert kinds(trace(BASE), trace([], output="plain answer", skill=None)) == [
        "routing_changed",
        "call_removed",
        "call_removed",
        "output_changed",
    ]


def test_moved_volatile_fact_is_info() -> None:
    g = trace(BASE, volatile_reads=[VolatileRead(key="fx.EUR/USD@2026-10-14", value=1.08, tool_call_index=0)])
    r = trace(BASE, volatile_reads=[VolatileRead(key="fx.EUR/USD@2026-10-14", value=1.11, tool_call_index=0)])
    findings = level0_findings(g, r)
    assert [(f.kind, f.severity) for f in findings] == [("volatile_changed", "info")]


def test_failed_replay_is_only_an_error_finding() -> None:
    failed = trace([], status="error", error="model call failed: 503")
    assert kinds(trace(BASE), failed) == ["replay_error"]


def test_what_level0_settles_before_any_judge() -> None:
    hard = Finding(kind="new_side_effect", severity="hard", detail="new send call x()")
    diff = Finding(kind="output_changed", severity="diff", detail="final output differs")
    info = Finding(kind="volatile_changed", severity="info", detail="moved")
    same = settled_by_level0([info], hard_fails_decide=True)
    assert same is not None and (same.outcome, same.reason) == ("same", "identical to the golden")
    regression = settled_by_level0([hard, diff], hard_fails_decide=True)
    assert regression is not None and (regression.outcome, regression.reason) == (
        "regression",
        "hard fail: new send call x()",
    )
    assert settled_by_level0([hard, diff], hard_fails_decide=False) is None
    assert settled_by_level0([diff, info], hard_fails_decide=True) is None
    error = settled_by_level0([Finding(kind="replay_error", severity="info", detail="boom")], hard_fails_decide=True)
    assert error is not None and (error.outcome, error.decided_by, error.reason) == (
        "error",
        "error",
        "replay failed: boom",
    )
    assert needs_judging([diff, info]) == "needs judging: 1 difference(s), first: final output differs"
