"""`ratchet check` names a broken file as `<repo path>@<sha10>:<line>`, never the scratch copy it read.

Both states of an edit are exported into scratch folders under RATCHET_HOME and deleted when the
check ends, so an error naming the scratch path names a file nobody can open. Each case goes
through the CLI on a real git repository: one line on stderr, exit 2, and no RATCHET_HOME path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit, make_project
from tests.helpers.project_text import WHAT_DAY_SKILL as SKILL
from tests.helpers.project_text import WHAT_DAY_TASKS as TASKS

runner = CliRunner()

GOLDEN = "goldens/what-day/what-day-01.json"
EDITED_SKILL = {"skills/what-day/SKILL.md": SKILL.replace("# What day is it", "# What day is it\n\nBe brief.")}


@pytest.fixture
def blessed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose HEAD holds a skill, its task and the task's blessed golden (no world)."""
    repo = make_project(tmp_path, monkeypatch, {"skills/what-day/SKILL.md": SKILL, "tasks.yaml": TASKS})
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    commit(repo, {GOLDEN: (repo / GOLDEN).read_text(encoding="utf-8")}, "bless")
    return repo


def _check(base: str) -> str:
    """stderr of `ratchet check --base base --level0-only`, asserted to be one line with exit 2 and no scratch path."""
    result = runner.invoke(app, ["check", "--base", base, "--level0-only"])
    assert result.exit_code == 2, result.output
    assert result.stderr.count("\n") == 1
    home = os.environ["RATCHET_HOME"]
    assert home not in result.stderr and str(Path(home).resolve()) not in result.stderr
    return result.stderr


def test_a_bad_frontmatter_key_at_head_names_skill_md_at_the_head(blessed: Path) -> None:
    base = commit(blessed, {}, "base")
    head = commit(
        blessed, {"skills/what-day/SKILL.md": SKILL.replace("description:", "colour: blue\ndescription:")}, "edit"
    )
    assert _check(base) == (
        f"error: skills/what-day/SKILL.md@{head[:10]}:3: unknown frontmatter key 'colour': "
        "allowed keys are name, description, license, compatibility, metadata, allowed-tools\n"
    )


def test_a_broken_tasks_yaml_at_the_base_names_tasks_yaml_at_the_base(blessed: Path) -> None:
    base = commit(blessed, {"tasks.yaml": TASKS.replace("  prompt:", "  promt:")}, "typo in tasks")
    commit(blessed, EDITED_SKILL, "edit")
    assert _check(base) == f"error: tasks.yaml@{base[:10]}:3: tasks.0.prompt: Field required\n"


def test_a_broken_golden_at_the_base_names_the_golden_at_the_base(blessed: Path) -> None:
    base = commit(blessed, {GOLDEN: '{"schema_version": 1, "task_id": \n'}, "truncated golden")
    commit(blessed, EDITED_SKILL, "edit")
    assert _check(base) == f"error: {GOLDEN}@{base[:10]}:2: not valid JSON: Expecting value\n"


def test_a_broken_world_file_at_head_names_it_at_the_head(blessed: Path) -> None:
    base = commit(blessed, {}, "base")
    head = commit(
        blessed, {**EDITED_SKILL, "world/people.yaml": "people:\n  - name: Dana\n    email: [unclosed\n"}, "edit"
    )
    assert (
        _check(base)
        == f"error: world/people.yaml@{head[:10]}:4: not valid YAML: expected ',' or ']', but got '<stream end>'\n"
    )
