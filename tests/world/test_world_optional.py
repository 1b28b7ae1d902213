"""The world is optional: a team whose skills use no mocked tool needs no world folder.

A missing or empty world folder is an empty world (the agent is offered only the tools that need
no world data: the workspace files and the frozen clock), for record, bless and check alike. A
world file that is there but broken is still an error naming it; so is a task naming a workspace
that does not exist. A missing workspaces folder is fine while no task names a workspace.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.core.errors import InputError
from ratchet.world import load_world
from ratchet.world.tools import offered_tools
from tests.helpers.gitrepo import commit, make_project
from tests.helpers.project_text import WHAT_DAY_SKILL as SKILL
from tests.helpers.project_text import WHAT_DAY_TASKS as TASKS

CLOCK = "2026-10-14T16:00:00Z"
runner = CliRunner()

NO_DATA_TOOLS = ["files_read_file", "files_list_files", "files_write_file", "clock_now"]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A committed project with one skill and one task, and no world or workspaces folder at all."""
    return make_project(tmp_path, monkeypatch, {"skills/what-day/SKILL.md": SKILL, "tasks.yaml": TASKS})


def test_a_missing_world_folder_is_an_empty_world_with_the_no_data_tools(tmp_path: Path) -> None:
    world = load_world(tmp_path / "world", workspaces_dir=tmp_path / "workspaces", workspace=None, frozen_time=CLOCK)
    assert (world.data, world.files, world.volatile_patterns) == ({}, {}, ())
    assert [tool.name for tool in offered_tools(world)] == NO_DATA_TOOLS


def test_an_empty_world_folder_or_one_with_only_a_readme_is_an_empty_world(tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    empty = load_world(tmp_path / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    (tmp_path / "world" / "README.md").write_text("# The world\n", encoding="utf-8")
    readme = load_world(tmp_path / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert empty.digest() == readme.digest()
    assert empty.data == {} and [tool.name for tool in offered_tools(readme)] == NO_DATA_TOOLS


def test_a_broken_world_file_is_still_an_error_naming_it_and_its_line(tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    broken = tmp_path / "world" / "people.yaml"
    broken.write_text("people:\n  - name: Dana\n    email: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_world(tmp_path / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert info.value.path == str(broken)
    assert info.value.line is not None


def test_a_world_path_that_is_a_file_is_still_an_error(tmp_path: Path) -> None:
    (tmp_path / "world").write_text("people: []\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_world(tmp_path / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert info.value.one_line() == (
        f"{tmp_path / 'world'}: this is a file, but the world is a folder of YAML files: "
        "point paths.world in ratchet.yaml at a folder, or remove the file"
    )


def test_a_task_naming_a_missing_workspace_is_still_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_world(tmp_path / "world", workspaces_dir=tmp_path / "workspaces", workspace="inbox", frozen_time=CLOCK)
    assert info.value.one_line() == f"{tmp_path / 'workspaces' / 'inbox'}: workspace 'inbox' not found"


def test_record_and_bless_need_no_world_folder(project: Path) -> None:
    recorded = runner.invoke(app, ["record"])
    assert (recorded.exit_code, recorded.stderr) == (0, "")
    blessed = runner.invoke(app, ["bless"])
    assert (blessed.exit_code, blessed.stderr) == (0, "")
    golden = json.loads((project / "goldens/what-day/what-day-01.json").read_text(encoding="utf-8"))
    assert [call["name"] for call in golden["tool_calls"]] == ["clock_now"]
    assert "2026-10-14" in golden["final_output"]


def test_record_with_paths_world_at_an_empty_folder(project: Path) -> None:
    (project / "ratchet.yaml").write_text("schema_version: 1\npaths:\n  world: mocks/world\n", encoding="utf-8")
    (project / "mocks" / "world").mkdir(parents=True)
    recorded = runner.invoke(app, ["record"])
    assert (recorded.exit_code, recorded.stderr) == (0, "")


def test_check_needs_no_world_folder(project: Path) -> None:
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    base = commit(
        project,
        {
            "goldens/what-day/what-day-01.json": (project / "goldens/what-day/what-day-01.json").read_text(
                encoding="utf-8"
            )
        },
        "bless",
    )
    commit(
        project,
        {"skills/what-day/SKILL.md": SKILL.replace("# What day is it", "# What day is it\n\nBe brief.")},
        "edit",
    )
    checked = runner.invoke(app, ["check", "--base", base, "--level0-only"])
    assert checked.stderr == ""
    assert checked.exit_code == 0
    assert "PASS" in checked.stdout


def test_record_with_paths_world_at_nothing_is_an_error_naming_the_setting(project: Path) -> None:
    # The default world folder may be missing (no world); a path the team set that names nothing is a typo.
    (project / "ratchet.yaml").write_text("schema_version: 1\npaths:\n  world: nowhere\n", encoding="utf-8")
    recorded = runner.invoke(app, ["record"])
    assert (recorded.exit_code, recorded.stdout) == (2, "")
    assert recorded.stderr == (
        f"error: {project / 'ratchet.yaml'}: paths.world: no world at nowhere: "
        "fix the path in ratchet.yaml, or remove the setting to run with no world\n"
    )
    assert not list((project.parent / "ratchet-home").glob("pending/*.json"))


def test_noise_with_paths_world_at_nothing_is_an_error_naming_the_setting(project: Path) -> None:
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    (project / "ratchet.yaml").write_text("schema_version: 1\npaths:\n  world: nowhere\n", encoding="utf-8")
    measured = runner.invoke(app, ["noise", "--repeats", "2"])
    assert (measured.exit_code, measured.stdout) == (2, "")
    assert measured.stderr == (
        f"error: {project / 'ratchet.yaml'}: paths.world: no world at nowhere: "
        "fix the path in ratchet.yaml, or remove the setting to run with no world\n"
    )
    assert not list((project / "goldens").glob("*/*.noise.json"))


def test_check_with_paths_world_at_nothing_at_the_head_is_an_error_naming_the_setting(project: Path) -> None:
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    golden = "goldens/what-day/what-day-01.json"
    base = commit(
        project,
        {
            golden: (project / golden).read_text(encoding="utf-8"),
            "ratchet.yaml": "schema_version: 1\npaths:\n  world: nowhere\n",
        },
        "bless",
    )
    head = commit(
        project,
        {"skills/what-day/SKILL.md": SKILL.replace("# What day is it", "# What day is it\n\nBe brief.")},
        "edit",
    )
    checked = runner.invoke(app, ["check", "--base", base, "--level0-only"])
    assert (checked.exit_code, checked.stdout) == (2, "")
    assert checked.stderr == (
        f"error: ratchet.yaml@{base[:10]}: paths.world: no world at nowhere@{head[:10]}: "
        "fix the path in ratchet.yaml, or remove the setting to run with no world\n"
    )
