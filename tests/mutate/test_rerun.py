"""A second `ratchet mutate` of the same project and seed writes the same bytes and costs $0: the checks share
the project's own work area, so every replay and judgement is served from its cache."""

from __future__ import annotations

from pathlib import Path

from ratchet.mutate.render import render_json, render_markdown
from ratchet.mutate.run import MutateOptions, mutate_project
from tests.mutate.hand_made import HandMade


def test_a_second_run_is_byte_identical_and_free(demo_repo: Path) -> None:
    first = mutate_project(demo_repo, MutateOptions(source=HandMade()))
    assert first.cost_usd > 0  # simulated dollars: the mutants' replays were new
    second = mutate_project(demo_repo, MutateOptions(source=HandMade()))
    assert second.cost_usd == 0
    assert render_json(second) == render_json(first)
    assert render_markdown(second) == render_markdown(first)
    # What a run spent is not in the bytes (a cached rerun costs $0); the worst-case estimate is.
    assert '"cost_usd"' not in render_json(first)
    assert first.estimate_usd == second.estimate_usd > 0


def test_another_seed_is_recorded(demo_repo: Path) -> None:
    first = mutate_project(demo_repo, MutateOptions(source=HandMade(), seed=1))
    assert '"seed": 1' in render_json(first)
