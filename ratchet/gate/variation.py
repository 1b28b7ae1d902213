"""Variation: which parts of a golden a replay changed, named so that repeats can be compared.

The parts are the keys of a noise record (ratchet.goldens.noise): `routing`; `call added: T`,
`call removed: T`; `argument: T.k`; for a world path left otherwise, the parts of the calls that wrote
it, or `state: <path>` when they are alike; `line: <a golden output line>` for a golden line the
replay changed or dropped; `line added` for a line the replay wrote that the golden has not.
Tool calls are aligned as Level 0 aligns them, output lines with difflib over the non-blank
lines, whitespace collapsed. The same function names the parts when a golden is blessed with
repeats and when a check's replay differs, so "differs only where this golden is known to vary"
is a set comparison, not a judgement.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from ratchet.gate.level0 import diff_tool_calls
from ratchet.gate.models import Finding
from ratchet.gate.state_diff import differing_paths
from ratchet.goldens.final_state import touches
from ratchet.goldens.noise import NoiseRecord
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.skills.names import optional_skill_key

LINE_ADDED = "line added"
_SHOWN_PARTS = 12


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _call_parts(golden: Sequence[ToolCall], replay: Sequence[ToolCall]) -> set[str]:
    by_golden = {call.index: call for call in golden}
    by_replay = {call.index: call for call in replay}
    parts: set[str] = set()
    for finding in diff_tool_calls(list(golden), list(replay)):
        if finding.kind in ("call_added", "new_side_effect"):
            parts.add(f"call added: {finding.tool}")
        elif finding.kind == "call_removed":
            parts.add(f"call removed: {finding.tool}")
        elif finding.kind == "call_moved":
            parts.add(f"call moved: {finding.tool}")
        elif finding.kind == "args_changed" and finding.golden_index is not None and finding.replay_index is not None:
            old, new = by_golden[finding.golden_index].arguments, by_replay[finding.replay_index].arguments
            parts.update(
                f"argument: {finding.tool}.{key}" for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)
            )
    return parts


def _line_parts(golden: str, replay: str) -> set[str]:
    ours, theirs = _lines(golden), _lines(replay)
    parts: set[str] = set()
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ours, b=theirs, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        parts.update(f"line: {line}" for line in ours[i1:i2])
        if j2 - j1 > i2 - i1:
            parts.add(LINE_ADDED)
    return parts


def _writes(calls: Sequence[ToolCall], path: str) -> list[ToolCall]:
    return [call for call in calls if any(touches(change.path, path) for change in call.state_changes)]


def _state_parts(path: str, golden: Trace, replay: Trace) -> set[str]:
    """The parts a world path's different final state is about: how the calls that wrote it differ (a send body
    known to vary leaves an outbox that varies with it), else `state: path` (no call explains it)."""
    return _call_parts(_writes(golden.tool_calls, path), _writes(replay.tool_calls, path)) or {f"state: {path}"}


def variation_parts(golden: Trace, replay: Trace) -> list[str]:
    """The parts of `golden` that `replay` changed, sorted; empty when they are the same run."""
    parts = _call_parts(golden.tool_calls, replay.tool_calls) | _line_parts(golden.final_output, replay.final_output)
    for path, _, _ in differing_paths(golden, replay):
        parts |= _state_parts(path, golden, replay)
    if optional_skill_key(golden.fired_skill) != optional_skill_key(replay.fired_skill):
        parts.add("routing")
    return sorted(parts)


def _finding_parts(finding: Finding, golden: Trace, replay: Trace) -> set[str]:
    """The parts one Level 0 finding is about (empty: none this module names, e.g. a volatile fact)."""
    if finding.kind == "routing_changed":
        return {"routing"}
    if finding.kind in ("call_added", "new_side_effect"):
        return {f"call added: {finding.tool}"}
    if finding.kind == "call_removed":
        return {f"call removed: {finding.tool}"}
    if finding.kind == "call_moved":
        return {f"call moved: {finding.tool}"}
    if finding.kind == "args_changed" and finding.golden_index is not None and finding.replay_index is not None:
        old = golden.tool_calls[finding.golden_index].arguments
        new = replay.tool_calls[finding.replay_index].arguments
        return {f"argument: {finding.tool}.{key}" for key in set(old) | set(new) if old.get(key) != new.get(key)}
    if finding.kind == "state_changed" and finding.path is not None:
        return _state_parts(finding.path, golden, replay)
    if finding.kind == "output_changed":
        return _line_parts(golden.final_output, replay.final_output) or {"output whitespace"}
    return set()


def mark_known(findings: Sequence[Finding], golden: Trace, replay: Trace, record: NoiseRecord) -> list[Finding]:
    """Level 0's findings with `known_to_vary` set on each whose parts the record saw vary (never a hard fail:
    a new side-effecting call blocks whatever the noise)."""
    marked: list[Finding] = []
    for finding in findings:
        parts = sorted(_finding_parts(finding, golden, replay))
        known = finding.severity == "diff" and record.covers(parts)
        marked.append(finding.model_copy(update={"known_to_vary": True}) if known else finding)
    return marked


def known_variation_text(record: NoiseRecord, parts: Sequence[str]) -> str:
    """What a judge is told about this golden's own variation (a fenced section: it quotes golden lines)."""
    shown = sorted(record.varying.items(), key=lambda item: (-item[1], item[0]))[:_SHOWN_PARTS]
    lines = [
        f"Replayed {record.repeats} times under the unchanged skill, this golden's own replays differed "
        f"from it {record.differed} times. Parts that varied (times of {record.repeats}):"
    ]
    lines += [f"- {part} ({count})" for part, count in shown]
    if len(record.varying) > len(shown):
        lines.append(f"- ... and {len(record.varying) - len(shown)} more")
    if record.seen_elsewhere:
        lines.append(
            "Also seen to vary in other goldens of this skill: " + "; ".join(record.seen_elsewhere[:_SHOWN_PARTS])
        )
    known = set(record.varying) | set(record.seen_elsewhere)
    outside = [part for part in parts if part not in known]
    lines.append(
        "Every difference in this replay is in a part known to vary."
        if not outside
        else f"Differences outside the known variation: {'; '.join(outside[:_SHOWN_PARTS])}"
    )
    return "\n".join(lines)
