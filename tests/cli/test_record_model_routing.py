"""Under `routing: model`, `ratchet record` judges routing by what the agent loaded, not by the lexical guess.

The lexical matcher only predicts what a model will load, so refusing on it would refuse recordings
a live model makes correctly. The runs decide: the table comes after them, without scores, and
nothing is written when a task loaded another skill than tasks.yaml expects.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.demo_repo import demo_project, pending_traces

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The packaged demo project on the simulator, with routing: model (the simulator loads skills from the catalog)."""
    root = demo_project(tmp_path, monkeypatch)
    config = root / "ratchet.yaml"
    config.write_text(config.read_text(encoding="utf-8") + "routing: model\n", encoding="utf-8")
    return root


def test_the_table_shows_what_the_model_loaded_after_the_runs(project: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["record", "--project", str(project), "github-triage-02", "fx-expense-converter-01"])
    assert result.exit_code == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["task", "expected", "fired", "score", "margin"]
    assert lines[1].split() == ["github-triage-02", "github-triage", "github-triage", "-", "-", "ok"]
    assert lines[3] == "routing: 2 tasks, 0 misrouted (the skill the agent model loaded)"
    assert lines[-1].startswith("recorded 2 pending trace(s)")
    assert pending_traces(tmp_path) == ["fx-expense-converter-01.json", "github-triage-02.json"]


def test_a_task_that_loaded_another_skill_writes_nothing(project: Path, tmp_path: Path) -> None:
    tasks = project / "tasks.yaml"
    text = tasks.read_text(encoding="utf-8")
    assert "- id: github-triage-02\n  skill: github-triage\n" in text
    tasks.write_text(
        text.replace(
            "- id: github-triage-02\n  skill: github-triage\n",
            "- id: github-triage-02\n  skill: fx-expense-converter\n",
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["record", "--project", str(project), "fx-expense-converter-01", "github-triage-02"])
    assert result.exit_code == 2
    assert "github-triage-02" in result.stdout and result.stdout.splitlines()[2].endswith("MISROUTED")
    assert result.stderr == (
        "error: tasks.yaml:6: task github-triage-02 expects skill fx-expense-converter but the model loaded skill "
        "github-triage; reword the skill's description or fix the task's `skill:` in tasks.yaml\n"
    )
    assert pending_traces(tmp_path) == []
