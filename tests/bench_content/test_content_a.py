"""Bench content A: expense-report, calendar-scheduler, changelog-writer, csv-cleaner.

Their skills validate, every task routes to its skill (with every bench skill present), every
task runs ok on the simulated agent within the runner's turn limit, twice to the same bytes,
and makes exactly the calls the skill intends: side effects on the normal path, none on the
edge cases that must stop.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ratchet.agent.runner import run_task
from ratchet.agent.trigger import match_skill
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import Trace
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills, validate_paths
from ratchet.world import load_world

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"
OWN_SKILLS = ("expense-report", "calendar-scheduler", "changelog-writer", "csv-cleaner")
OWN_PACKS = [REPO / f"ratchet/world/tools/{name}.py" for name in ("calendar", "expenses", "releases")]
SKILLS = load_skills(REPO / "skills")
TASKS = {t.id: t for t in load_tasks(REPO / "bench/tasks.yaml")}
OWN_TASKS = [t for t in TASKS.values() if t.skill in OWN_SKILLS]
CANARIES = [t for t in TASKS.values() if t.is_canary]
SIDE_EFFECTS = {"write", "send", "spend", "destroy"}

_CAL = (
    "calendar_list_events",
    "calendar_list_events",
    "calendar_find_free_slots",
    "calendar_create_event",
    "calendar_send_invite",
)
_EXP = ("files_read_file", "expenses_get_policy", "expenses_submit_report")
_CHG = ("releases_latest_tag", "releases_list_merged_prs", "releases_create_draft")
_CSV = ("files_read_file", "files_write_file")
EXPECTED_CALLS: dict[str, tuple[str, ...]] = {
    **{f"calendar-scheduler-{n:02d}": _CAL for n in (1, 2, 3, 4, 6, 7, 8)},
    "calendar-scheduler-05": (*_CAL[:2], "calendar_cancel_event", *_CAL[2:]),
    "calendar-scheduler-09": _CAL[:2],
    "calendar-scheduler-10": (),
    **{f"expense-report-{n:02d}": _EXP for n in (1, 2, 5, 7)},
    **{f"expense-report-{n:02d}": (*_EXP, "email_send") for n in (3, 4, 6, 8)},
    "expense-report-09": _EXP[:1],
    "expense-report-10": _EXP[:1],
    **{f"changelog-writer-{n:02d}": _CHG for n in (1, 2, 4, 6, 7, 8)},
    **{f"changelog-writer-{n:02d}": (*_CHG, "email_send") for n in (3, 5)},
    "changelog-writer-09": _CHG[:2],
    "changelog-writer-10": _CHG[:1],
    **{f"csv-cleaner-{n:02d}": _CSV for n in range(1, 9)},
    "csv-cleaner-09": _CSV[:1],
    "csv-cleaner-10": _CSV[:1],
}


def run(task: Task) -> Trace:
    world = load_world(
        REPO / "bench/world", workspaces_dir=REPO / "bench/workspaces", workspace=task.workspace, frozen_time=CLOCK
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


def test_own_skills_validate_cleanly() -> None:
    problems = validate_paths([REPO / "skills" / name for name in OWN_SKILLS])
    assert problems == []
    for name in OWN_SKILLS:
        skill = SKILLS[name]
        assert skill.name == name and skill.frontmatter["license"] == "CC-BY-4.0"
        assert skill.frontmatter["metadata"]["owner"] and skill.frontmatter["metadata"]["version"]


def test_ten_tasks_per_skill_two_of_them_edge_cases() -> None:
    assert sorted(EXPECTED_CALLS) == sorted(t.id for t in OWN_TASKS)
    for name in OWN_SKILLS:
        tasks = [t for t in OWN_TASKS if t.skill == name]
        assert [t.id for t in tasks] == [f"{name}-{n:02d}" for n in range(1, 11)]
        assert sum(t.edge_case for t in tasks) == 2
        for task in tasks:
            if task.workspace is not None:
                assert (REPO / "bench/workspaces" / task.workspace).is_dir()


@pytest.mark.parametrize("task", OWN_TASKS + CANARIES, ids=lambda t: t.id)
def test_routes_to_its_skill_with_every_skill_present(task: Task) -> None:
    assert match_skill(task.prompt, SKILLS) == task.skill
    own = {name: skill for name, skill in SKILLS.items() if name in OWN_SKILLS}
    assert match_skill(task.prompt, own) == task.skill


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_task_runs_ok_with_the_intended_calls_and_is_deterministic(task: Task) -> None:
    trace = run(task)
    assert trace.status == "ok", trace.error
    assert [s.name for s in trace.skills_fired] == [task.skill]
    assert tuple(c.name for c in trace.tool_calls) == EXPECTED_CALLS[task.id]
    assert trace.final_output.startswith(f"I followed the {task.skill} skill.")
    expected_errors = 1 if task.id in {"expense-report-09", "changelog-writer-10", "csv-cleaner-09"} else 0
    assert sum(1 for c in trace.tool_calls if c.error) == expected_errors
    if task.edge_case:
        assert not [c for c in trace.tool_calls if c.effect in SIDE_EFFECTS]
    assert run(task).to_json() == trace.to_json()


@pytest.mark.parametrize("skill", OWN_SKILLS)
def test_each_skill_has_side_effects_in_some_tasks(skill: str) -> None:
    effects = {c.effect for t in OWN_TASKS if t.skill == skill and not t.edge_case for c in run(t).tool_calls}
    assert effects & SIDE_EFFECTS


def test_side_effect_kinds_cover_write_send_spend_destroy() -> None:
    effects = {c.effect for t in OWN_TASKS for c in run(t).tool_calls}
    assert effects >= SIDE_EFFECTS


def test_worked_values() -> None:
    """A few results checked by hand against the world and the workspaces."""
    outputs = {
        tid: run(TASKS[tid]).final_output
        for tid in ("calendar-scheduler-05", "expense-report-02", "changelog-writer-03", "csv-cleaner-03")
    }
    assert (
        "start: 12:00" in outputs["calendar-scheduler-05"]
        and "replaced_hold: evt-4103" in outputs["calendar-scheduler-05"]
    )
    assert (
        "approver: finance@example.com" in outputs["expense-report-02"]
        and "total_usd: 1514.50" in outputs["expense-report-02"]
    )
    assert "next_tag: v2.0.0" in outputs["changelog-writer-03"]
    assert "rows_out: 4" in outputs["csv-cleaner-03"] and "line 3: missing name" in outputs["csv-cleaner-03"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed in this environment")
    return found


def test_own_tool_packs_pass_mypy_strict() -> None:
    result = subprocess.run(
        [_tool("mypy"), "--strict", "--follow-imports=silent", *map(str, OWN_PACKS)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_own_tool_packs_pass_ruff() -> None:
    result = subprocess.run(
        [_tool("ruff"), "check", *map(str, OWN_PACKS)], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
