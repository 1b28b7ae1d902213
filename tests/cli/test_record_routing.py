"""`ratchet record` shows routing first and refuses a misrouted task; `ratchet validate --tasks` agrees."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bless.record import record_tasks
from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.core.errors import RoutingError
from ratchet.lint.routing import project_routing
from tests.helpers.demo_repo import demo_project, pending_traces

runner = CliRunner()

FIX = "reword the skill's description or fix the task's `skill:` in tasks.yaml"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the packaged demo project (two skills, 23 tasks) on the simulator."""
    return demo_project(tmp_path, monkeypatch)


def _expect(root: Path, task_id: str, skill: str | None) -> None:
    """Rewrite one task's `skill:` line in tasks.yaml (None makes it a canary)."""
    path = root / "tasks.yaml"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = lines.index(f"- id: {task_id}\n")
    assert lines[at + 1].startswith("  skill: ")
    if skill is None:
        del lines[at + 1]
    else:
        lines[at + 1] = f"  skill: {skill}\n"
    path.write_text("".join(lines), encoding="utf-8")


def test_a_misrouted_task_is_refused_before_any_trace_is_written(project: Path, tmp_path: Path) -> None:
    _expect(project, "github-triage-02", "fx-expense-converter")
    report = project_routing(load_project(project))
    row = next(r for r in report.rows if r.task_id == "github-triage-02")
    result = runner.invoke(app, ["record", "--project", str(project)])
    assert result.exit_code == 2
    assert result.stdout == report.table() + "\n"
    assert "\ngithub-triage-02         fx-expense-converter  github-triage         0." in result.stdout
    assert result.stdout.splitlines()[2].endswith("MISROUTED")
    assert result.stdout.splitlines()[-1].startswith("routing: 23 tasks, 1 misrouted")
    assert result.stderr == (
        f"error: tasks.yaml:6: task github-triage-02 expects skill fx-expense-converter but skill github-triage "
        f"fired (score {row.score:.3f}, margin {row.margin:.3f}); {FIX}\n"
    )
    assert pending_traces(tmp_path) == []


def test_a_canary_that_fires_a_skill_is_misrouted(project: Path, tmp_path: Path) -> None:
    _expect(project, "github-triage-01", None)
    result = runner.invoke(app, ["record", "--project", str(project)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: tasks.yaml:3: task github-triage-01 is a canary (no skill should take it) but skill github-triage fired"
    )
    assert pending_traces(tmp_path) == []


def test_validate_tasks_prints_the_same_table_and_refuses_alike(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _expect(project, "github-triage-02", "fx-expense-converter")
    monkeypatch.chdir(project)
    recorded = runner.invoke(app, ["record"])
    validated = runner.invoke(app, ["validate", "--tasks"])
    assert (validated.exit_code, validated.stdout, validated.stderr) == (2, recorded.stdout, recorded.stderr)


def test_validate_tasks_passes_a_well_routed_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    result = runner.invoke(app, ["validate", "--tasks"])
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == project_routing(load_project(project)).table() + "\n"
    assert result.stdout.splitlines()[-1].startswith("routing: 23 tasks, 0 misrouted")


def test_a_well_routed_project_records_as_before(project: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["record", "github-triage-01", "canary-01", "--project", str(project)])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["task", "expected", "fired", "score", "margin"]
    assert [line.split()[:3] for line in lines[1:3]] == [
        ["github-triage-01", "github-triage", "github-triage"],
        ["canary-01", "none", "none"],
    ]
    assert lines[3].startswith("routing: 2 tasks, 0 misrouted")
    assert lines[4:] == [f"recorded 2 pending trace(s) in {tmp_path / 'home' / 'pending'}"]
    assert pending_traces(tmp_path) == ["canary-01.json", "github-triage-01.json"]


def test_only_the_picked_tasks_are_checked(project: Path, tmp_path: Path) -> None:
    _expect(project, "github-triage-02", "fx-expense-converter")
    result = runner.invoke(app, ["record", "github-triage-01", "--project", str(project)])
    assert result.exit_code == 0, result.stderr
    assert pending_traces(tmp_path) == ["github-triage-01.json"]


def test_record_tasks_refuses_only_when_strict(project: Path, tmp_path: Path) -> None:
    """The bench and demo builders call record_tasks without strict until the lead decides otherwise."""
    _expect(project, "github-triage-02", "fx-expense-converter")
    loaded = load_project(project)
    with pytest.raises(RoutingError, match=r"^tasks.yaml:6: task github-triage-02 expects"):
        record_tasks(loaded, ["github-triage-02"], strict=True)
    assert pending_traces(tmp_path) == []
    assert record_tasks(loaded, ["github-triage-02"]).written == ["github-triage-02"]
