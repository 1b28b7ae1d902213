"""The routing report: which skill each task fires, against what tasks.yaml expects."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet.config.project import load_project
from ratchet.core.errors import RoutingError
from ratchet.data import demo_files
from ratchet.goldens.tasks import load_tasks, parse_tasks
from ratchet.lint.routing import RoutingReport, RoutingRow, project_routing, route_tasks
from tests.helpers.sim_run import REPO, SKILLS

TASKS_YAML = """\
schema_version: 1
tasks:
- id: triage-1
  skill: github-triage
  prompt: 'Please triage issue #101 in acme/widgets.'
- id: fx-1
  skill: fx-expense-converter
  prompt: 'Please triage issue #102 in acme/widgets.'
- id: canary-1
  prompt: 'Please triage issue #103 in acme/widgets.'
- id: canary-2
  prompt: What is the difference between a process and a thread?
"""


def _report() -> RoutingReport:
    tasks = parse_tasks(TASKS_YAML, source="tasks.yaml")
    return route_tasks(tasks, SKILLS, lines=[3, 6, 9, 11], source="bench/tasks.yaml")


def test_each_row_names_the_task_its_line_expected_and_fired_skill() -> None:
    rows = _report().rows
    assert [(r.task_id, r.line, r.expected, r.fired, r.ok) for r in rows] == [
        ("triage-1", 3, "github-triage", "github-triage", True),
        ("fx-1", 6, "fx-expense-converter", "github-triage", False),
        ("canary-1", 9, None, "github-triage", False),
        ("canary-2", 11, None, None, True),
    ]
    assert rows[0].score >= 0.2 and rows[0].margin >= 0.05 and rows[0].best == "github-triage"


def test_ok_compares_skill_names_by_identity() -> None:
    row = RoutingRow(
        task_id="t",
        line=1,
        expected="\uff46x-expense-converter",
        fired="fx-expense-converter",
        best="fx-expense-converter",
        score=0.5,
        margin=0.3,
    )
    assert row.ok
    assert not RoutingRow(task_id="t", line=1, expected=None, fired="x", best="x", score=0.5, margin=0.3).ok


def test_the_table_is_fixed_width_plain_text_and_deterministic() -> None:
    report = _report()
    table = report.table()
    assert table == _report().table()
    lines = table.splitlines()
    assert lines[0].split() == ["task", "expected", "fired", "score", "margin"]
    assert lines[2].split()[:3] == ["fx-1", "fx-expense-converter", "github-triage"]
    assert lines[2].endswith("MISROUTED") and lines[1].endswith("ok")
    assert lines[3].split()[:3] == ["canary-1", "none", "github-triage"]
    assert lines[4].split()[:3] == ["canary-2", "none", "none"]
    # fixed width: every score column starts at the same offset
    assert len({line.index(" 0.") for line in lines[1:5]}) == 1
    assert lines[-1] == "routing: 4 tasks, 2 misrouted (a skill fires at score >= 0.20 and margin >= 0.05)"
    assert "\x1b" not in table


def test_the_refusal_names_the_first_misrouted_task_and_its_line() -> None:
    report = _report()
    with pytest.raises(RoutingError) as caught:
        report.refuse()
    row = report.rows[1]
    assert caught.value.one_line() == (
        f"bench/tasks.yaml:6: task fx-1 expects skill fx-expense-converter but skill github-triage fired "
        f"(score {row.score:.3f}, margin {row.margin:.3f}); 1 more task misrouted (see the table); "
        "reword the skill's description or fix the task's `skill:` in tasks.yaml"
    )
    assert caught.value.exit_code == 2


def test_a_canary_that_fires_and_a_task_that_fires_nothing_are_named_as_such() -> None:
    tasks = parse_tasks(TASKS_YAML, source="tasks.yaml")
    canary = route_tasks([tasks[2]], SKILLS, lines=[9], source="t.yaml")
    with pytest.raises(
        RoutingError,
        match=r"^t.yaml:9: task canary-1 is a canary \(no skill should take it\) "
        r"but skill github-triage fired \(score",
    ):
        canary.refuse()
    lone = {"fx-expense-converter": SKILLS["fx-expense-converter"]}
    nothing = route_tasks(
        [tasks[0].model_copy(update={"skill": "fx-expense-converter"})], lone, lines=[3], source="t.yaml"
    )
    with pytest.raises(
        RoutingError,
        match=r"task triage-1 expects skill fx-expense-converter but no skill fired "
        r"\(best fx-expense-converter, score 0\.\d{3}, margin 0\.\d{3}\); reword",
    ):
        nothing.refuse()
    missing = route_tasks([tasks[0].model_copy(update={"skill": "no-such-skill"})], SKILLS, lines=[3], source="t.yaml")
    with pytest.raises(
        RoutingError,
        match=r"expects skill no-such-skill, which is not in the skills folder, but skill "
        r"github-triage fired",
    ):
        missing.refuse()


def test_a_well_routed_report_does_not_refuse() -> None:
    tasks = parse_tasks(TASKS_YAML, source="tasks.yaml")
    route_tasks([tasks[0], tasks[3]], SKILLS, lines=[3, 11], source="t.yaml").refuse()


def test_this_repository_and_the_demo_route_every_task_as_expected(tmp_path: Path) -> None:
    bench = project_routing(load_project(REPO, home=tmp_path / "h"))
    assert bench.source == "bench/tasks.yaml" and len(bench.rows) == 103 and bench.misrouted == []
    with demo_files() as source:
        shutil.copytree(source, tmp_path / "demo")
    demo = project_routing(load_project(tmp_path / "demo", home=tmp_path / "h"))
    assert demo.source == "tasks.yaml" and len(demo.rows) == 23 and demo.misrouted == []


def test_project_routing_reads_lines_from_tasks_yaml_for_the_tasks_given(tmp_path: Path) -> None:
    with demo_files() as source:
        shutil.copytree(source, tmp_path / "demo")
    project = load_project(tmp_path / "demo", home=tmp_path / "h")
    tasks = {task.id: task for task in load_tasks(project.path("tasks"))}
    report = project_routing(project, [tasks["github-triage-02"], tasks["github-triage-01"]])
    assert [(r.task_id, r.line) for r in report.rows] == [("github-triage-02", 6), ("github-triage-01", 3)]
