"""Tool calls of a golden and its replay, lined up exactly as Level 0 diffed them.

The alignment is read back from `level0.diff_tool_calls`' findings, not recomputed: a call
Level 0 reports removed, added or argument-changed is shown so, and every call it did not
mention is one of its `equal` stretches, which pair up in order. What the page shows can
therefore never disagree with what the gate decided on.
"""

from __future__ import annotations

from collections.abc import Mapping

from ratchet.gate.level0 import diff_tool_calls
from ratchet.goldens.trace import ToolCall
from ratchet.review.models import AlignedRow


def changed_args(golden: ToolCall, replay: ToolCall) -> list[str]:
    """The argument names whose values differ between two calls of the same tool."""
    keys = sorted(set(golden.arguments) | set(replay.arguments))
    return [key for key in keys if golden.arguments.get(key) != replay.arguments.get(key)]


def align_calls(golden: list[ToolCall], replay: list[ToolCall]) -> list[AlignedRow]:
    """Rows in golden order; a replay-only call is placed before the first row that follows it in the replay."""
    removed: set[int] = set()
    added: set[int] = set()
    partner: dict[int, int] = {}  # golden position -> replay position (argument changes)
    g_pos = {call.index: pos for pos, call in enumerate(golden)}
    r_pos = {call.index: pos for pos, call in enumerate(replay)}
    for finding in diff_tool_calls(golden, replay):
        g = g_pos.get(finding.golden_index) if finding.golden_index is not None else None
        r = r_pos.get(finding.replay_index) if finding.replay_index is not None else None
        if g is not None and r is not None:
            partner[g] = r
        elif g is not None:
            removed.add(g)
        elif r is not None:
            added.add(r)
    mentioned = set(partner.values()) | added
    equal_replay = iter([pos for pos in range(len(replay)) if pos not in mentioned])
    rows: list[AlignedRow] = []
    shown: set[int] = set()

    def flush_added(before: int) -> None:
        for pos in sorted(added - shown):
            if pos < before:
                rows.append(AlignedRow(kind="added", replay=replay[pos]))
                shown.add(pos)

    for g in range(len(golden)):
        old = golden[g]
        if g in removed:
            rows.append(AlignedRow(kind="removed", golden=old))
            continue
        r = partner[g] if g in partner else next(equal_replay, None)
        if r is None:  # only if indexes repeat within a trace: show it rather than guess a partner
            rows.append(AlignedRow(kind="removed", golden=old))
            continue
        flush_added(r)
        new = replay[r]
        if g in partner:
            rows.append(AlignedRow(kind="changed", golden=old, replay=new, changed_args=changed_args(old, new)))
        else:
            rows.append(AlignedRow(kind="same", golden=old, replay=new))
    flush_added(len(replay))
    return rows


def golden_only(golden: list[ToolCall], marked: Mapping[int, str]) -> list[AlignedRow]:
    """Rows for a golden whose replay was not kept: each call as it was, marked by what Level 0 said of it."""
    rows: list[AlignedRow] = []
    for call in golden:
        kind = marked.get(call.index)
        rows.append(
            AlignedRow(kind="removed" if kind == "call_removed" else "changed" if kind else "same", golden=call)
        )
    return rows
