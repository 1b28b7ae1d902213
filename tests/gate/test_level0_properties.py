"""Properties of Level 0, the deterministic diff of a replay's tool calls against its golden (ratchet.gate.level0).

What it promises: calls are aligned by (tool, arguments); inside a changed stretch, calls of the same
tool pair up in order and differ only in arguments; a side-effecting call (write, send, spend,
destroy) in the replay with no counterpart in the golden is a hard fail ("a write the golden never
made", docs/quickstart.md); findings come hard first; a failed replay is only its error.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from ratchet.gate.level0 import diff_tool_calls, level0_findings
from ratchet.gate.models import Finding
from ratchet.goldens.trace import SIDE_EFFECTS, SkillRef, ToolCall, Trace, VolatileRead

# A tool has one effect (the world's declaration), so a call's effect follows from its name.
TOOLS = {
    "get_issue": "read",
    "list_labels": "read",
    "add_label": "write",
    "send_email": "send",
    "pay_invoice": "spend",
    "delete_branch": "destroy",
}
WRITERS = sorted(name for name, effect in TOOLS.items() if effect in SIDE_EFFECTS)
# Few names and values, so the same call comes up again and alignments have choices to make.
ARGUMENTS = st.dictionaries(st.sampled_from(["repo", "n", "label"]), st.sampled_from([0, 1, "bug", None]), max_size=2)
CALLS = st.lists(st.tuples(st.sampled_from(sorted(TOOLS)), ARGUMENTS), max_size=8)


def calls(specs: list[tuple[str, dict[str, Any]]]) -> list[ToolCall]:
    return [
        ToolCall(index=i, name=name, arguments=arguments, effect=TOOLS[name])
        for i, (name, arguments) in enumerate(specs)
    ]


def trace(specs: list[tuple[str, dict[str, Any]]], **kw: Any) -> Trace:
    return Trace(
        task_id="t1",
        prompt="p",
        seed=1,
        frozen_time="2026-10-14T16:00:00Z",
        skills_fired=[SkillRef(name="github-triage", content_hash="c", substance_hash="s")],
        tool_calls=calls(specs),
        **kw,
    )


def signature(call: ToolCall) -> tuple[str, str]:
    return call.name, repr(sorted(call.arguments.items(), key=repr))


def hard(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "hard"]


def reversed_keys(specs: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, dict(reversed(arguments.items()))) for name, arguments in specs]


R, R0, L = ("get_issue", {"n": 1}), ("get_issue", {"n": 0}), ("list_labels", {})
W, S = ("add_label", {"label": "bug"}), ("send_email", {})


@given(CALLS, st.text(max_size=10), st.lists(st.tuples(st.sampled_from(["fx", "clock"]), st.integers(0, 3))))
@example(specs=[], output="", reads=[("fx", 0), ("fx", 1)])  # was "volatile fact fx moved: 1 -> 0" (fixed)
def test_identical_traces_have_no_findings(specs: list[Any], output: str, reads: list[tuple[str, int]]) -> None:
    volatile = [VolatileRead(key=key, value=value, tool_call_index=0) for key, value in reads]
    golden = trace(specs, final_output=output, volatile_reads=volatile)
    assert level0_findings(golden, golden.model_copy(deep=True)) == []
    # The arguments are a mapping: the order they were written in is no difference.
    assert level0_findings(golden, trace(reversed_keys(specs), final_output=output, volatile_reads=volatile)) == []


@given(CALLS, st.lists(st.tuples(st.sampled_from(["fx", "clock"]), st.integers(0, 3)), min_size=1))
def test_a_moved_volatile_fact_is_named_and_only_as_context(specs: list[Any], reads: list[tuple[str, int]]) -> None:
    key = reads[0][0]
    moved = [(name, value + 10 if name == key else value) for name, value in reads]
    golden, replay = ([VolatileRead(key=k, value=v, tool_call_index=0) for k, v in seq] for seq in (reads, moved))
    findings = level0_findings(trace(specs, volatile_reads=golden), trace(specs, volatile_reads=replay))
    assert findings and all(f.kind == "volatile_changed" and f.severity == "info" for f in findings)
    assert all(f.detail.startswith(f"volatile fact {key} moved: ") for f in findings)


@given(CALLS, CALLS)
def test_no_findings_exactly_when_the_calls_are_the_same_either_way(golden: list[Any], replay: list[Any]) -> None:
    same = [signature(c) for c in calls(golden)] == [signature(c) for c in calls(replay)]
    assert (diff_tool_calls(calls(golden), calls(replay)) == []) == same
    assert (diff_tool_calls(calls(replay), calls(golden)) == []) == same


@given(CALLS, CALLS)
def test_every_call_is_aligned_or_named_once(golden: list[Any], replay: list[Any]) -> None:
    old, new = calls(golden), calls(replay)
    findings = diff_tool_calls(old, new)
    named_old = [f.golden_index for f in findings if f.golden_index is not None]
    named_new = [f.replay_index for f in findings if f.replay_index is not None]
    assert len(named_old) == len(set(named_old)) and len(named_new) == len(set(named_new))
    # What no finding names is what was aligned as equal: the same calls, in the same order.
    aligned_old = [signature(c) for c in old if c.index not in named_old]
    aligned_new = [signature(c) for c in new if c.index not in named_new]
    assert aligned_old == aligned_new
    for finding in findings:
        kinds = {"call_removed": (True, False), "args_changed": (True, True), "call_moved": (True, True)}.get(
            finding.kind, (False, True)
        )
        assert (finding.golden_index is not None, finding.replay_index is not None) == kinds


@given(CALLS, CALLS)
@example(golden=[R, W, R0, W], replay=[("add_label", {"n": 0}), R, R0, ("add_label", {"label": 1})])
def test_same_tool_calls_pair_up_in_order_and_differ_in_arguments(golden: list[Any], replay: list[Any]) -> None:
    old, new = calls(golden), calls(replay)
    pairs: dict[str, list[tuple[int, int]]] = {}
    for finding in diff_tool_calls(old, new):
        if finding.kind == "args_changed":
            assert finding.golden_index is not None and finding.replay_index is not None
            before, after = old[finding.golden_index], new[finding.replay_index]
            assert before.name == after.name == finding.tool and before.arguments != after.arguments
            if " and moved (" in finding.detail:  # a write paired across stretches, so as not to be named new
                assert after.effect in SIDE_EFFECTS
                continue
            pairs.setdefault(before.name, []).append((before.index, after.index))
    for found in pairs.values():
        assert found == sorted(found) and [n for _, n in found] == sorted(n for _, n in found)  # never crossing


@given(CALLS, CALLS, st.text(max_size=3), st.text(max_size=3))
def test_findings_come_hard_first(golden: list[Any], replay: list[Any], one: str, other: str) -> None:
    findings = level0_findings(trace(golden, final_output=one), trace(replay, final_output=other))
    order = {"hard": 0, "diff": 1, "info": 2}
    assert [order[f.severity] for f in findings] == sorted(order[f.severity] for f in findings)


@given(CALLS, CALLS)
def test_a_hard_finding_is_only_ever_a_side_effecting_call_of_the_replay(golden: list[Any], replay: list[Any]) -> None:
    new = calls(replay)
    for finding in hard(level0_findings(trace(golden), trace(replay))):
        assert finding.kind == "new_side_effect" and finding.replay_index is not None
        call = new[finding.replay_index]
        assert call.effect in SIDE_EFFECTS and (finding.tool, finding.effect) == (call.name, call.effect)


@given(CALLS, st.data())
def test_a_replay_of_reads_only_never_hard_fails(golden: list[Any], data: st.DataObject) -> None:
    reads = [spec for spec in golden if TOOLS[spec[0]] == "read"]
    replay = data.draw(st.lists(st.sampled_from(reads), max_size=6)) if reads else []
    assert hard(level0_findings(trace(golden), trace(replay))) == []


@given(CALLS, st.sampled_from(WRITERS), ARGUMENTS, st.data())
@example(golden=[R], tool="add_label", arguments={"label": "bug"}, data=None)
def test_a_new_side_effecting_call_is_always_a_hard_fail(
    golden: list[Any], tool: str, arguments: dict[str, Any], data: st.DataObject | None
) -> None:
    at = data.draw(st.integers(0, len(golden))) if data is not None else len(golden)
    replay = [*golden[:at], (tool, arguments), *golden[at:]]
    found = hard(level0_findings(trace(golden), trace(replay)))
    assert any(f.tool == tool and f.kind == "new_side_effect" for f in found)
    if tool not in {name for name, _ in golden}:  # a tool the golden never called: this very call is named
        assert (tool, at) in [(f.tool, f.replay_index) for f in found]


@given(CALLS, CALLS)
@example(golden=[R, W], replay=[W, R])  # the same two calls swapped: was "new write call add_label(label='bug')"
@example(golden=[R, L, W, R0, R, L], replay=[W, R, L])  # fewer calls, in the golden's own order: the same (fixed)
@example(golden=[W, W, W], replay=[W, S, W, W])  # a send added is named, and was a write the golden made (fixed)
def test_a_tool_hard_fails_at_most_as_often_as_the_replay_calls_it_more(golden: list[Any], replay: list[Any]) -> None:
    # "No counterpart in the golden": inside a stretch a call's counterpart is an unaligned call of its tool.
    surplus = Counter(name for name, _ in replay) - Counter(name for name, _ in golden)
    assert Counter(f.tool for f in hard(level0_findings(trace(golden), trace(replay)))) <= surplus


def test_a_write_the_alignment_moved_is_judged_not_new() -> None:
    found = level0_findings(trace([R, W]), trace([W, R]))
    moved = [f for f in found if f.kind == "call_moved"]
    assert not hard(found) and [(f.tool, f.severity, f.golden_index, f.replay_index) for f in moved] == [
        ("add_label", "diff", 1, 0)
    ]
    assert moved[0].detail == "write call add_label(label='bug') moved (call 1 in the golden, 0 now)"
    # A write whose arguments changed as it moved is an argument change, judged; a second write is still new.
    other = ("add_label", {"label": 1})
    found = level0_findings(trace([R, W]), trace([other, R, W]))
    assert [f.kind for f in hard(found)] == ["new_side_effect"]
    found = level0_findings(trace([R, W]), trace([other, R]))
    assert not hard(found) and [f.kind for f in found if f.tool == "add_label"] == ["args_changed"]


@given(CALLS, CALLS, st.text(max_size=20))
def test_a_failed_replay_is_only_its_error(golden: list[Any], replay: list[Any], error: str) -> None:
    findings = level0_findings(trace(golden), trace(replay, status="error", error=error or None))
    assert [(f.kind, f.severity) for f in findings] == [("replay_error", "info")]
