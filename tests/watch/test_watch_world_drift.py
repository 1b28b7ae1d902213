"""A world that moved after bless is world drift, reported on its own, never the model's behaviour moving."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.project import load_project
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.watch.compare import classify, world_moved
from ratchet.watch.run import WatchOptions, watch_project
from tests.watch.conftest import NOISE_REPEATS

FX_SKILL = "fx-expense-converter"
MOVED_RATE = '"2026-10-05": {EUR: 1.0905,'


def test_a_world_file_edited_after_bless_is_world_drift_not_model_movement(watched_repo: Path) -> None:
    fx = watched_repo / "world" / "fx.yaml"
    text = fx.read_text(encoding="utf-8")
    assert text.count(MOVED_RATE) == 1
    fx.write_text(text.replace(MOVED_RATE, '"2026-10-05": {EUR: 1.1905,'), encoding="utf-8")

    report = watch_project(load_project(watched_repo), WatchOptions(repeats=4))

    assert report.moved == []
    world = {replay.task_id for replay in report.world}
    assert "fx-expense-converter-01" in world  # reads the EUR rate of 2026-10-05, which moved
    assert all(
        replay.detail.endswith("(fx_get_rate) answered otherwise than when the golden was recorded")
        for replay in report.world
    )
    skill = next(s for s in report.skills if s.skill == FX_SKILL)
    assert skill.world == 4 * len(world)
    assert skill.replays == 4 * (len(skill.goldens) - len(world))  # left out of the model's count
    # ... and so is the drifted golden's record from the baseline: like is compared with like.
    assert skill.noise_repeats == NOISE_REPEATS * (len(skill.goldens) - len(world))
    assert not any(replay.kind == "world" for replay in report.replays if not replay.task_id.startswith("fx-"))


def _call(
    index: int, result: object, *, name: str = "fx_get_rate", arguments: dict[str, object] | None = None
) -> ToolCall:
    return ToolCall(index=index, name=name, arguments=arguments or {"date": f"d{index}"}, effect="read", result=result)


def _trace(calls: list[ToolCall], output: str = "total: 1") -> Trace:
    return Trace(
        task_id="t", prompt="p", seed=1, frozen_time="2026-10-10T00:00:00Z", tool_calls=calls, final_output=output
    )


def test_only_a_result_that_moves_before_the_model_does_is_world_drift() -> None:
    golden = _trace([_call(0, 1), _call(1, 2)])
    # The world answered call 2 otherwise; the output followed it: the world moved.
    moved = _trace([_call(0, 1), _call(1, 3)], output="total: 2")
    assert world_moved(golden, moved) == "call 2 (fx_get_rate) answered otherwise than when the golden was recorded"
    assert classify("t", 0, golden, moved).kind == "world"
    # The model asked for another call first: the model moved, whatever the world said after.
    asked_otherwise = _trace([_call(0, 1, arguments={"date": "other"}), _call(1, 3)])
    assert world_moved(golden, asked_otherwise) is None
    assert classify("t", 0, golden, asked_otherwise).kind == "differed"
    # Same calls, same answers, another output: the model.
    assert classify("t", 0, golden, _trace([_call(0, 1), _call(1, 2)], output="total: 9")).kind == "differed"
    assert classify("t", 0, golden, _trace([_call(0, 1), _call(1, 2)])).kind == "same"
