"""`ratchet init` writes a triggers.yaml that validates; `ratchet validate` checks the project's triggers.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.triggers import load_triggers
from tests.triggers.conftest import write_project

runner = CliRunner()


def test_init_scaffolds_a_triggers_file_that_validates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert runner.invoke(app, ["init"]).exit_code == 0
    queries = load_triggers(tmp_path / "triggers.yaml")
    assert [(q.id, q.skill, q.should_fire) for q in queries] == [("canary:not:1", None, False)]
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout.splitlines()[-1]) == (0, "0 skills checked: 0 errors, 0 warnings")
    # Its commented example, uncommented as a team would, parses too once the skill exists.
    lines = (tmp_path / "triggers.yaml").read_text(encoding="utf-8").splitlines()
    start = lines.index("  # Uncomment and adapt:") + 1
    example = range(start, lines.index("  - skill: null"))
    uncommented = [line.replace("# ", "", 1) if n in example else line for n, line in enumerate(lines)]
    (tmp_path / "triggers.yaml").write_text("\n".join(uncommented) + "\n", encoding="utf-8")
    assert [q.id for q in load_triggers(tmp_path / "triggers.yaml")] == [
        "my-skill:fire:1",
        "my-skill:not:1",
        "canary:not:1",
    ]


def test_validate_names_a_skill_the_library_does_not_have_with_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    assert runner.invoke(app, ["validate"]).exit_code == 0
    (root / "triggers.yaml").write_text(
        "triggers:\n  - skill: fx-convert\n    should_fire: [x]\n  - skill: gone\n    should_not_fire: [y]\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    assert result.stdout == (
        "triggers.yaml:4: error: triggers.1.skill: no skill 'gone' in the skills folder\n"
        "2 skills checked: 1 error, 0 warnings\n"
    )


def test_validate_reports_a_broken_triggers_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write_project(tmp_path / "proj")
    monkeypatch.chdir(root)
    (root / "triggers.yaml").write_text("triggers:\n  - skill: fx-convert\n    should_fire:\n      - ''\n")
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout.splitlines()[0]) == (
        2,
        "triggers.yaml:4: error: triggers.0.should_fire.0: an empty prompt",
    )
