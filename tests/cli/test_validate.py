"""`ratchet validate`: exact output and exit codes through typer's CliRunner."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app

DATA = Path(__file__).parent.parent / "data" / "skills"
runner = CliRunner()

GOOD = "---\nname: {name}\ndescription: Does one thing well.\n---\nBody\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project in tmp_path (the cwd) whose skills dir is the tests/data/skills/project fixture."""
    shutil.copytree(DATA / "project", tmp_path / "skills")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    return tmp_path


def test_default_path_is_the_project_skills_dir(project: Path) -> None:
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    assert result.stdout == (
        "skills/client-keys/SKILL.md:4: warning: 'model' is a client-specific key, not in the "
        "agentskills.io spec; other clients ignore it\n"
        "skills/client-keys/SKILL.md:5: warning: 'disable-model-invocation' is a client-specific key, "
        "not in the agentskills.io spec; other clients ignore it\n"
        "skills/wrong-name/SKILL.md:2: error: 'name' 'right-name' must equal the folder name "
        "'wrong-name': rename one of them\n"
        "3 skills checked: 1 error, 2 warnings\n"
    )
    assert result.stderr == ""


def test_skills_dir_comes_from_ratchet_yaml(project: Path) -> None:
    (project / "ratchet.yaml").write_text("paths:\n  skills: my-skills\n")
    (project / "my-skills").mkdir()
    (project / "my-skills" / "only-one").mkdir()
    (project / "my-skills" / "only-one" / "SKILL.md").write_text(GOOD.format(name="only-one"))
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stdout) == (0, "1 skill checked: 0 errors, 0 warnings\n")


def test_warnings_alone_exit_zero(project: Path) -> None:
    result = runner.invoke(app, ["validate", "skills/client-keys", "skills/good-skill"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[-1] == "2 skills checked: 0 errors, 2 warnings"


def test_a_skill_md_path_names_its_folder(project: Path) -> None:
    result = runner.invoke(app, ["validate", "skills/wrong-name/SKILL.md"])
    assert result.exit_code == 2
    assert result.stdout == (
        "skills/wrong-name/SKILL.md:2: error: 'name' 'right-name' must equal the folder name "
        "'wrong-name': rename one of them\n"
        "1 skill checked: 1 error, 0 warnings\n"
    )


def test_malformed_skill_md_is_one_line_no_traceback(project: Path) -> None:
    bad = project / "skills" / "good-skill" / "SKILL.md"
    bad.write_text("---\nname: good-skill\ndescription: [unclosed\n---\n")
    result = runner.invoke(app, ["validate", "skills/good-skill"])
    assert result.exit_code == 2
    assert result.stdout == (
        "skills/good-skill/SKILL.md:3: error: frontmatter is not valid YAML: "
        "expected ',' or ']', but got '<stream end>'\n"
        "1 skill checked: 1 error, 0 warnings\n"
    )
    assert "Traceback" not in result.output


def test_output_is_sorted_whatever_the_argument_order(project: Path) -> None:
    forward = runner.invoke(app, ["validate", "skills/client-keys", "skills/wrong-name"])
    backward = runner.invoke(app, ["validate", "skills/wrong-name", "skills/client-keys"])
    assert forward.stdout == backward.stdout
    assert forward.exit_code == backward.exit_code == 2


def test_nonexistent_path_is_one_line_exit_2(project: Path) -> None:
    result = runner.invoke(app, ["validate", "skills/good-skill", "nope"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", "error: nope: path does not exist\n")
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_plain_file_is_not_a_skill_folder(project: Path) -> None:
    (project / "notes.txt").write_text("x")
    result = runner.invoke(app, ["validate", "notes.txt"])
    assert result.exit_code == 2
    assert result.stderr == ("error: notes.txt: not a skill folder: give a folder with SKILL.md, or a folder of them\n")


def test_missing_default_skills_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (
        2,
        (
            "error: .: no skills found: looked in skills/, .claude/skills/, .agents/skills/, .codex/skills/, "
            "<plugin>/skills/ (next to <plugin>/.claude-plugin/plugin.json), plugins/*/skills/; give a PATH, "
            "or set paths.skills in ratchet.yaml\n"
        ),
    )


def test_bad_ratchet_yaml_is_one_line(project: Path) -> None:
    (project / "ratchet.yaml").write_text("paths: [\n")
    result = runner.invoke(app, ["validate"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"error: {project / 'ratchet.yaml'}:")
    assert len(result.stderr.splitlines()) == 1
