"""Bench content B: invoice-parser, weekly-research-brief, dependency-updater, meeting-notes.

Each skill validates, each of its tasks routes to it (and every canary to none) with all skills
present, runs ok on the simulated agent within the runner's turn limit, deterministically, and
the side-effecting calls the mutations need really happen. A moved volatile fact (a D1 overlay)
changes the output of the world-dependent skills, and the fixtures report the moved value.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from ratchet.agent.runner import run_task
from ratchet.agent.trigger import match_skill
from ratchet.gate.drift import FixtureSearch
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import Trace
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import validate_skill_folder
from ratchet.world import load_world

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"
MINE = ("invoice-parser", "weekly-research-brief", "dependency-updater", "meeting-notes")
PACKS = ("invoices", "news", "registry", "tracker")
SKILLS = load_skills(REPO / "skills")
TASKS = {t.id: t for t in load_tasks(REPO / "bench/tasks.yaml")}
OWN = [t for t in TASKS.values() if t.skill in MINE]
CANARIES = [t for t in TASKS.values() if t.is_canary]
SIDE_EFFECTS = {"write", "send", "spend", "destroy"}


def run(task: Task, overlays: Sequence[Path] = ()) -> Trace:
    world = load_world(
        REPO / "bench/world",
        workspaces_dir=REPO / "bench/workspaces",
        workspace=task.workspace,
        frozen_time=CLOCK,
        overlays=overlays,
    )
    return run_task(
        task,
        SKILLS,
        world,
        sim_model_for("agent"),
        seed=task_seed(task.id),
        frozen_time=CLOCK,
        models={"agent": "sim/agent-1"},
        max_turns=16,
    )


@pytest.mark.parametrize("name", MINE)
def test_skill_validates(name: str) -> None:
    assert [p for p in validate_skill_folder(REPO / "skills" / name)] == []
    assert SKILLS[name].name == name


@pytest.mark.parametrize("name", MINE)
def test_ten_tasks_two_edge_cases_each(name: str) -> None:
    tasks = [t for t in OWN if t.skill == name]
    assert [t.id for t in tasks] == [f"{name}-{i:02d}" for i in range(1, 11)]
    assert sum(t.edge_case for t in tasks) == 2
    assert all(t.workspace and (REPO / "bench/workspaces" / t.workspace).is_dir() for t in tasks)


@pytest.mark.parametrize("task", OWN + CANARIES, ids=lambda t: t.id)
def test_routes_to_its_own_skill_with_all_skills_present(task: Task) -> None:
    assert match_skill(task.prompt, SKILLS) == task.skill


@pytest.mark.parametrize("task", OWN, ids=lambda t: t.id)
def test_task_runs_ok_and_deterministically(task: Task) -> None:
    first, second = run(task), run(task)
    assert first.status == "ok", first.error
    assert first.fired_skill == task.skill
    assert first.to_json() == second.to_json()
    assert first.final_output.startswith(f"I followed the {task.skill} skill.")
    assert len(first.tool_calls) <= 14  # headroom under the runner's 16 turns


def _effects(task_ids: list[str]) -> dict[str, set[str]]:
    return {tid: {c.effect for c in run(TASKS[tid]).tool_calls if c.error is None} for tid in task_ids}


def test_side_effecting_calls_happen() -> None:
    effects = _effects(
        [
            "invoice-parser-01",
            "invoice-parser-03",
            "weekly-research-brief-03",
            "dependency-updater-01",
            "meeting-notes-02",
        ]
    )
    assert "spend" in effects["invoice-parser-01"] and "write" in effects["invoice-parser-01"]
    assert "send" in effects["invoice-parser-03"] and "spend" not in effects["invoice-parser-03"]
    assert "send" in effects["weekly-research-brief-03"]
    assert "write" in effects["dependency-updater-01"]
    assert {"write", "send"} <= effects["meeting-notes-02"]
    for name in MINE:
        assert any(SIDE_EFFECTS & {c.effect for c in run(t).tool_calls} for t in OWN if t.skill == name)


@pytest.mark.parametrize(
    "task_id",
    [
        "invoice-parser-10",
        "invoice-parser-07",
        "dependency-updater-09",
        "dependency-updater-10",
        "weekly-research-brief-09",
        "weekly-research-brief-10",
        "meeting-notes-09",
        "meeting-notes-10",
    ],
)
def test_stopping_branches_have_no_side_effect(task_id: str) -> None:
    trace = run(TASKS[task_id])
    assert trace.status == "ok" and not [c for c in trace.tool_calls if c.effect in SIDE_EFFECTS]


def _fixture_value(key: str) -> object:
    search = FixtureSearch(REPO / "bench/fixtures")
    assert key in search.facts, f"no fixture for {key}"
    return search.facts[key][0]


def test_d1_moved_package_version_changes_the_pull_request(tmp_path: Path) -> None:
    key = "packages.registry.ferrous-log.latest"
    moved = _fixture_value(key)
    overlay = tmp_path / "drift.yaml"
    overlay.write_text(f'packages:\n  registry:\n    ferrous-log: {{latest: "{moved}"}}\n')
    task = TASKS["dependency-updater-03"]
    before, after = run(task), run(task, overlays=[overlay])
    assert [r.value for r in before.volatile_reads if r.key == key] == ["2.8.0"]
    assert [r.value for r in after.volatile_reads if r.key == key] == [moved]
    assert f"ferrous-log 2.8.0 -> {moved}" in after.final_output and after.final_output != before.final_output
    assert FixtureSearch(REPO / "bench/fixtures").confirm(key, moved)[0]


def test_d1_moved_market_figure_changes_the_brief(tmp_path: Path) -> None:
    key = "news.metrics.battery-pack-price.value"
    moved = _fixture_value(key)
    overlay = tmp_path / "drift.yaml"
    overlay.write_text(f"news:\n  metrics:\n    battery-pack-price: {{value: {moved}}}\n")
    task = TASKS["weekly-research-brief-01"]
    before, after = run(task), run(task, overlays=[overlay])
    assert (
        [r.value for r in after.volatile_reads if r.key == key]
        == [moved]
        != [r.value for r in before.volatile_reads if r.key == key]
    )
    assert [c.name for c in after.tool_calls] == [c.name for c in before.tool_calls]
    assert "biggest_mover: Carbon removal credit (3.5%)" in before.final_output
    assert "biggest_mover: Li-ion battery pack price (-4.5%)" in after.final_output


@pytest.mark.parametrize("tool", ["mypy", "ruff"])
def test_tool_packs_are_strictly_typed_and_lint_clean(tool: str) -> None:
    files = [str(REPO / "ratchet/world/tools" / f"{pack}.py") for pack in PACKS]
    command = (
        [sys.executable, "-m", "mypy", "--strict", *files]
        if tool == "mypy"
        else [sys.executable, "-m", "ruff", "check", *files]
    )
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
