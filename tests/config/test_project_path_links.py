"""A `paths.*` setting that leads out of the project through a symlink is refused where the working tree is
loaded (record, noise, validate): Ratchet reads and writes only the project's own tree (issue 22, "no host
file reaches a sandbox"). `check` reads the base through git, where a link is a file holding its target."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import make_project
from tests.helpers.project_text import WHAT_DAY_SKILL as SKILL
from tests.helpers.project_text import WHAT_DAY_TASKS as TASKS

runner = CliRunner()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_project(
        tmp_path,
        monkeypatch,
        {"skills/what-day/SKILL.md": SKILL, "tasks.yaml": TASKS, "ratchet.yaml": "schema_version: 1\n"},
    )


def _outside(tmp_path: Path, name: str) -> Path:
    """What the link points at, outside the project: a copy of what the setting would name inside it."""
    host = tmp_path / "host" / name
    if name == "tasks.yaml":
        host.parent.mkdir(parents=True)
        host.write_text(TASKS, encoding="utf-8")
    else:
        (host / "what-day").mkdir(parents=True)
        (host / "what-day" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return host


@pytest.mark.parametrize("command", [["record"], ["noise", "--repeats", "2"], ["validate"]])
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("skills", "skills"),
        ("tasks", "tasks.yaml"),
        ("world", "world"),
        ("workspaces", "workspaces"),
        ("goldens", "goldens"),
    ],
)
def test_a_path_setting_linked_out_of_the_project_is_refused(
    project: Path, tmp_path: Path, command: list[str], name: str, value: str
) -> None:
    target = _outside(tmp_path, value)
    if (project / value).is_dir():
        shutil.rmtree(project / value)
    (project / value).unlink(missing_ok=True)
    (project / value).symlink_to(target)
    result = runner.invoke(app, command)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {project / 'ratchet.yaml'}: paths.{name}: {value} is a symlink to {str(target)!r}, "
        "which leads outside the project: Ratchet reads only the project's own tree; "
        "move it into the project, or fix the path in ratchet.yaml\n"
    )


def test_a_path_setting_through_a_linked_folder_is_refused_naming_the_link(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "host"
    (target / "skills" / "what-day").mkdir(parents=True)
    (target / "skills" / "what-day" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (project / "lib").symlink_to(target)
    (project / "ratchet.yaml").write_text("schema_version: 1\npaths:\n  skills: lib/skills\n", encoding="utf-8")
    result = runner.invoke(app, ["record"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        f"error: {project / 'ratchet.yaml'}: paths.skills: lib is a symlink to {str(target)!r}, "
        "which leads outside the project: Ratchet reads only the project's own tree; "
        "move it into the project, or fix the path in ratchet.yaml\n"
    )


def test_a_path_setting_linked_inside_the_project_is_fine(project: Path) -> None:
    (project / "skills").rename(project / "own-skills")
    (project / "skills").symlink_to("own-skills")
    result = runner.invoke(app, ["validate"])
    assert (result.exit_code, result.stderr) == (0, "")
