"""The side-by-side rows follow Level 0's own diff, call for call."""

from __future__ import annotations

from typing import Any

from ratchet.goldens.trace import ToolCall
from ratchet.review.align import align_calls, golden_only


def _call(index: int, name: str, effect: str = "read", **arguments: Any) -> ToolCall:
    return ToolCall(index=index, name=name, arguments=arguments, effect=effect)  # type: ignore[arg-type]


def _shape(rows: list[Any]) -> list[tuple[str, int | None, int | None, list[str]]]:
    return [
        (r.kind, r.golden.index if r.golden else None, r.replay.index if r.replay else None, r.changed_args)
        for r in rows
    ]


def test_identical_calls_pair_up_as_same() -> None:
    calls = [_call(0, "get", id=1), _call(1, "label", "write", label="a")]
    assert _shape(align_calls(calls, calls)) == [("same", 0, 0, []), ("same", 1, 1, [])]


def test_changed_argument_pairs_the_same_tool_and_names_the_argument() -> None:
    golden = [_call(0, "get", id=1), _call(1, "label", "write", label="priority/normal", repo="r")]
    replay = [_call(0, "get", id=1), _call(1, "label", "write", label="priority/medium", repo="r")]
    assert _shape(align_calls(golden, replay)) == [("same", 0, 0, []), ("changed", 1, 1, ["label"])]


def test_added_call_sits_where_the_replay_made_it_and_removed_keeps_its_golden_place() -> None:
    golden = [_call(0, "get", id=1), _call(1, "search", q="x"), _call(2, "close", "write")]
    replay = [_call(0, "get", id=1), _call(1, "email_send", "send", to="f"), _call(2, "close", "write")]
    assert _shape(align_calls(golden, replay)) == [
        ("same", 0, 0, []),
        ("removed", 1, None, []),
        ("added", None, 1, []),
        ("same", 2, 2, []),
    ]


def test_trailing_added_calls_come_last() -> None:
    golden = [_call(0, "get", id=1)]
    replay = [_call(0, "get", id=1), _call(1, "send", "send", to="x")]
    assert _shape(align_calls(golden, replay)) == [("same", 0, 0, []), ("added", None, 1, [])]


def test_golden_only_marks_what_level0_named() -> None:
    golden = [_call(0, "get", id=1), _call(1, "label", "write", label="a"), _call(2, "close", "write")]
    rows = golden_only(golden, {1: "args_changed", 2: "call_removed"})
    assert [r.kind for r in rows] == ["same", "changed", "removed"]
