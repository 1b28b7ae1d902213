"""`ratchet validate` in a team's first hour: right after `ratchet init`, a ratchet.yaml that is not a
file, and `--tasks` with `--library` (the README's line), each with exact output and exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app

runner = CliRunner()

NO_SKILLS_YET = (
    "skills/: no skills yet: write one as skills/<name>/SKILL.md (frontmatter name and description, "
    "then the instructions)\n"
)
SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody\n"


@pytest.fixture
def initialized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path after `ratchet init` (the cwd): ratchet.yaml, tasks.yaml, world/ and an empty skills/."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["init"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert sorted(p.name for p in (tmp_path / "skills").iterdir()) == []
    return tmp_path


def test_validate_right_after_init_passes_and_says_there_is_no_skill_yet(initialized: Path) -> None:
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == NO_SKILLS_YET + "0 skills checked: 0 errors, 0 warnings\n"


def test_a_file_in_the_empty_skills_folder_is_still_no_skill_yet(initialized: Path) -> None:
    (initialized / "skills" / ".gitkeep").write_text("")
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout) == (0, NO_SKILLS_YET + "0 skills checked: 0 errors, 0 warnings\n")


def test_an_empty_harness_skills_folder_without_ratchet_yaml_is_no_skill_yet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "skills").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout) == (0, NO_SKILLS_YET + "0 skills checked: 0 errors, 0 warnings\n")


def test_the_first_skill_is_validated_as_usual(initialized: Path) -> None:
    (initialized / "skills" / "my-skill").mkdir()
    (initialized / "skills" / "my-skill" / "SKILL.md").write_text(
        SKILL.format(name="my-skill", description="Does one thing.")
    )
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout) == (0, "1 skill checked: 0 errors, 0 warnings\n")


def test_an_empty_folder_named_on_the_command_line_is_still_a_skill_missing_its_skill_md(initialized: Path) -> None:
    result = runner.invoke(app, ["validate", "skills"])
    assert (result.exit_code, result.stdout) == (
        2,
        "skills/SKILL.md: error: SKILL.md missing: every skill folder needs one\n1 skill checked: 1 error, 0 warnings\n",
    )


def test_a_ratchet_yaml_that_is_a_folder_is_one_line_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ratchet.yaml").mkdir()
    (tmp_path / "skills" / "a").mkdir(parents=True)
    (tmp_path / "skills" / "a" / "SKILL.md").write_text(SKILL.format(name="a", description="Does a."))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    for args in (["validate"], ["validate", "--library"], ["validate", "--tasks"]):
        result = runner.invoke(app, args)
        assert (result.exit_code, result.stdout) == (2, ""), args
        assert result.stderr == (
            "error: ratchet.yaml: this is a folder, but ratchet.yaml must be a file: move the folder away\n"
        ), args


def test_tasks_and_library_together_print_both_reports(initialized: Path) -> None:
    for name, description in (
        ("fx-convert", "Convert currency amounts using exchange rates."),
        ("expense-report", "Build an expense report from receipts."),
    ):
        (initialized / "skills" / name).mkdir()
        (initialized / "skills" / name / "SKILL.md").write_text(SKILL.format(name=name, description=description))
    (initialized / "tasks.yaml").write_text(
        "tasks:\n  - id: t1\n    prompt: convert 10 usd to eur at the exchange rate\n    skill: fx-convert\n"
        "  - id: t2\n    prompt: build the expense report from these receipts\n    skill: expense-report\n"
    )
    tasks = runner.invoke(app, ["validate", "--tasks"])
    library = runner.invoke(app, ["validate", "--library"])
    both = runner.invoke(app, ["validate", "--tasks", "--library"])
    assert (tasks.exit_code, library.exit_code, both.exit_code) == (0, 0, 0)
    assert tasks.stdout.splitlines()[0].split()[:3] == ["task", "expected", "fired"]
    assert library.stdout.splitlines()[0].startswith("library: 2 of 2 skills model-invocable")
    assert both.stdout == tasks.stdout + library.stdout


def test_tasks_and_library_together_report_both_and_exit_2_when_a_task_is_misrouted(initialized: Path) -> None:
    (initialized / "skills" / "fx-convert").mkdir()
    (initialized / "skills" / "fx-convert" / "SKILL.md").write_text(
        SKILL.format(name="fx-convert", description="Convert currency amounts using exchange rates.")
    )
    # init's example task still expects my-skill, which does not exist: misrouted.
    both = runner.invoke(app, ["validate", "--tasks", "--library"])
    assert both.exit_code == 2
    assert "example-01  my-skill" in both.stdout
    assert both.stdout.splitlines()[-1] == "1 skill checked: 0 errors, 0 warnings"
    assert "library: 1 of 1 skills model-invocable" in both.stdout
    assert both.stderr.startswith("error: tasks.yaml:")
