"""Level 0's state diff: the world a replay left behind against the world its golden left behind.

Each trace's final state is the net effect of its calls per world path (ratchet.goldens.final_state), so
the comparison is blind to the order and route of the calls: a retry, a reordered read or two sends in
the other order leave the same state and no finding. A replay that answers the same words but leaves
the world otherwise gets one `state_changed` finding (severity diff: judged, never settled alone) per
path whose net effect differs, golden's before replay's. A golden recorded before final states were kept
has its state computed from its calls' state changes. The judges see the same difference, longer, beside
the trace diff (state_diff_text).
"""

from __future__ import annotations

from typing import Any

from ratchet.core.jsonio import canonical_dumps
from ratchet.gate.models import Finding
from ratchet.goldens.trace import Trace

UNCHANGED = "unchanged"
ABSENT = "(absent)"
_FINDING_LIMIT = 100  # characters of one value in a finding's detail
_JUDGE_LIMIT = 400  # and in the judges' state diff


def _shown(value: object, limit: int) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe_effect(effect: Any, limit: int = _FINDING_LIMIT) -> str:
    """A net effect as a reviewer reads it: `None -> 'a'`, `added {...}; removed {...}`, or `unchanged`."""
    if effect is None:
        return UNCHANGED
    if isinstance(effect, dict) and effect and set(effect) <= {"from", "to"}:  # a side left out: no such key
        return " -> ".join(_shown(effect[side], limit) if side in effect else ABSENT for side in ("from", "to"))
    if isinstance(effect, dict) and set(effect) == {"added", "removed"}:
        parts = [
            f"{key} {', '.join(_shown(item, limit) for item in effect[key])}"
            for key in ("added", "removed")
            if effect[key]
        ]
        return "; ".join(parts) or UNCHANGED
    return _shown(effect, limit)


def _effects(trace: Trace) -> dict[str, Any]:
    state = trace.final_state_or_computed()
    return state.effects if state is not None else {}


def differing_paths(golden: Trace, replay: Trace) -> list[tuple[str, Any, Any]]:
    """(path, the golden's net effect, the replay's) for each path where they differ, by path; None: unchanged."""
    ours, theirs = _effects(golden), _effects(replay)
    return [
        (path, ours.get(path), theirs.get(path))
        for path in sorted(set(ours) | set(theirs))
        # as canonical JSON: Python calls True and 1 (and 1 and 1.0) equal; the world's JSON does not
        if canonical_dumps(ours.get(path), indent=None) != canonical_dumps(theirs.get(path), indent=None)
    ]


def state_findings(golden: Trace, replay: Trace) -> list[Finding]:
    """One `state_changed` finding per world path whose final state differs."""
    return [
        Finding(
            kind="state_changed",
            severity="diff",
            detail=f"final state of {path} differs: golden {describe_effect(old)}; replay {describe_effect(new)}",
            path=path,
        )
        for path, old, new in differing_paths(golden, replay)
    ]


def state_diff_text(golden: Trace, replay: Trace) -> str | None:
    """The differing paths as the judges read them (golden -, replay +); None when the final states agree."""
    lines = [
        line
        for path, old, new in differing_paths(golden, replay)
        for line in (
            f"- {path}: {describe_effect(old, _JUDGE_LIMIT)}",
            f"+ {path}: {describe_effect(new, _JUDGE_LIMIT)}",
        )
    ]
    return "final state differs (golden -, replay +):\n" + "\n".join(lines) if lines else None
