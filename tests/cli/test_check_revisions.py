"""`ratchet check --base/--head` take any git revision naming one commit, and quote a bad one as typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit, make_project
from tests.helpers.project_text import WHAT_DAY_SKILL as SKILL
from tests.helpers.project_text import WHAT_DAY_TASKS as TASKS

runner = CliRunner()
GOLDEN = "goldens/what-day/what-day-01.json"


@pytest.fixture
def edited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose commit "Bless goldens" holds its golden, and whose HEAD edits the skill."""
    repo = make_project(tmp_path, monkeypatch, {"skills/what-day/SKILL.md": SKILL, "tasks.yaml": TASKS})
    assert runner.invoke(app, ["record"]).exit_code == 0
    assert runner.invoke(app, ["bless"]).exit_code == 0
    commit(repo, {GOLDEN: (repo / GOLDEN).read_text(encoding="utf-8")}, "Bless goldens")
    commit(
        repo, {"skills/what-day/SKILL.md": SKILL.replace("# What day is it", "# What day is it\n\nBe brief.")}, "edit"
    )
    return repo


def test_a_message_search_names_the_base(edited: Path) -> None:
    by_message = runner.invoke(app, ["check", "--base", ":/Bless", "--level0-only", "--format", "json"])
    by_parent = runner.invoke(app, ["check", "--base", "HEAD~1", "--level0-only", "--format", "json"])
    assert (by_message.exit_code, by_message.stderr) == (0, "")
    assert by_parent.exit_code == 0
    found, expected = json.loads(by_message.stdout), json.loads(by_parent.stdout)
    assert (found["base"], found["decision"]) == (expected["base"], "PASS")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--base", "HEAD~1..HEAD"],
            "revision 'HEAD~1..HEAD' is a range, not one commit: for a range A..B pass "
            "--base A --head B (here --base HEAD~1 --head HEAD)",
        ),
        (
            ["--base", "HEAD~1", "--head", "main...HEAD"],
            "revision 'main...HEAD' is a range, not one commit: name a single commit",
        ),
        (["--base", ":/no such commit"], "unknown revision ':/no such commit'"),
    ],
    ids=["two-dots", "three-dots-head", "no-match"],
)
def test_a_bad_revision_is_quoted_as_typed(edited: Path, flags: list[str], message: str) -> None:
    result = runner.invoke(app, ["check", *flags, "--level0-only"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"error: {message}\n")
