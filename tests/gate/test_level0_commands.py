"""Level 0 over mocked commands (`cmd:<name>` calls): a command pairs with a golden's run of the same name only
when it does what that run did to the world (the same effect, both mocked or both not)."""

from __future__ import annotations

from ratchet.gate.level0 import level0_findings
from ratchet.goldens.trace import Effect, ToolCall, Trace
from ratchet.world.commands import NOT_MOCKED


def _cmd(index: int, effect: Effect, *argv: str, mocked: bool = True) -> ToolCall:
    return ToolCall(
        index=index,
        name=f"cmd:{argv[0]}",
        arguments={"argv": list(argv)},
        effect=effect,
        error=None if mocked else NOT_MOCKED.format(name=argv[0]),
    )


def _trace(*calls: ToolCall) -> Trace:
    return Trace(task_id="t1", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z", tool_calls=list(calls))


def _found(golden: list[ToolCall], replay: list[ToolCall]) -> list[tuple[str, str]]:
    return [(f.kind, f.severity) for f in level0_findings(_trace(*golden), _trace(*replay))]


def test_a_read_command_becoming_a_write_of_the_same_name_is_a_new_side_effect() -> None:
    found = level0_findings(_trace(_cmd(0, "read", "git", "log")), _trace(_cmd(0, "write", "git", "push", "--force")))
    assert [(f.kind, f.severity) for f in found] == [("new_side_effect", "hard"), ("call_removed", "diff")]
    assert found[0].detail == "new write call cmd:git(argv=['git', 'push', '--force'])"


def test_an_unmocked_run_in_place_of_a_mocked_one_is_new_and_so_is_the_reverse() -> None:
    mocked, unmocked = (
        _cmd(0, "write", "gh", "issue", "comment"),
        _cmd(0, "write", "gh", "issue", "close", mocked=False),
    )
    assert _found([mocked], [unmocked]) == [("new_side_effect", "hard"), ("call_removed", "diff")]
    assert _found([unmocked], [mocked]) == [("new_side_effect", "hard"), ("call_removed", "diff")]


def test_the_same_effect_with_other_arguments_still_pairs_as_a_diff() -> None:
    assert _found(
        [_cmd(0, "send", "gh", "issue", "comment", "7")], [_cmd(0, "send", "gh", "issue", "comment", "8")]
    ) == [("args_changed", "diff")]
    # Doing less to the world is no new side effect: a write the replay no longer makes, read instead.
    assert _found([_cmd(0, "write", "git", "push")], [_cmd(0, "read", "git", "status")]) == [("args_changed", "diff")]


def test_a_moved_write_is_paired_only_with_a_run_of_its_own_effect() -> None:
    golden = [_cmd(0, "read", "git", "log"), _cmd(1, "read", "cat", "a"), _cmd(2, "read", "cat", "b")]
    replay = [_cmd(0, "read", "cat", "a"), _cmd(1, "read", "cat", "b"), _cmd(2, "write", "git", "push")]
    assert ("new_side_effect", "hard") in _found(golden, replay)
