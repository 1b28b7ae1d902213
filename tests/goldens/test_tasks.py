"""tasks.yaml: ids and workspace names that become paths are plain names, reported with their line."""

from __future__ import annotations

import pytest

from ratchet.core.errors import TaskFileError
from ratchet.goldens.tasks import parse_tasks

GOOD = """\
schema_version: 1
tasks:
  - id: first-01
    prompt: do the first thing
    skill: weekly-report
  - id: second-01
    prompt: do the second thing
    skill: weekly-report
    workspace: {workspace}
"""


def _error(text: str) -> str:
    with pytest.raises(TaskFileError) as info:
        parse_tasks(text, source="tasks.yaml")
    return str(info.value)


def test_a_plain_workspace_name_is_accepted() -> None:
    tasks = parse_tasks(GOOD.format(workspace="fx-weekend-trip"), source="tasks.yaml")
    assert [t.workspace for t in tasks] == [None, "fx-weekend-trip"]


@pytest.mark.parametrize("workspace", ["../../secret", "/etc", "a/../../b", "sub/dir", "..", "'.'"])
def test_a_workspace_that_is_not_a_plain_name_is_refused_with_its_line(workspace: str) -> None:
    shown = workspace.strip("'")
    assert _error(GOOD.format(workspace=workspace)) == (
        f"tasks.yaml:6: workspace name {shown!r} must be one folder name: 1-128 letters, digits, ., - or _, "
        "starting with a letter or digit, no '..'"
    )


def test_a_task_id_that_is_not_a_plain_name_is_refused_with_its_line() -> None:
    text = GOOD.format(workspace="w").replace("id: second-01", "id: ../../ESCAPED")
    assert _error(text) == (
        "tasks.yaml:6: task id '../../ESCAPED' must be 1-80 lowercase letters, digits, - or _, "
        "starting with a letter or digit"
    )


def test_an_expected_skill_that_is_not_a_skill_name_is_refused_with_its_line() -> None:
    text = GOOD.format(workspace="w").replace("skill: weekly-report\n  - id", "skill: ../x\n  - id")
    assert _error(text) == (
        "tasks.yaml:3: skill name '../x' must be 1-64 lowercase letters, digits and single hyphens, "
        "no hyphen at either end"
    )
