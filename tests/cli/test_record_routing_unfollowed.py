"""`ratchet record` refuses a skill the simulator cannot follow, unless --allow-unfollowed."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bless.record import plan_record, record_tasks
from ratchet.cli import app
from ratchet.config.project import load_project
from ratchet.core.errors import SkillError
from ratchet.sim.follow import NOTHING_TO_READ
from tests.helpers.demo_repo import demo_project, pending_traces

runner = CliRunner()

FREE_FORM = """\
---
name: release-notes
description: Draft release notes from merged pull requests for a tagged release.
---
# Release notes

Write release notes the way the team likes them.

## Steps
1. Read the merged pull requests since the last tag.
2. Group them into features, fixes and chores.
"""

TASK = """\
- id: release-notes-01
  skill: release-notes
  prompt: Draft the release notes for the merged pull requests of the tagged release.
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The packaged demo project plus a free-form skill and one task that routes to it."""
    root = demo_project(tmp_path, monkeypatch)
    (root / "skills" / "release-notes").mkdir()
    (root / "skills" / "release-notes" / "SKILL.md").write_text(FREE_FORM, encoding="utf-8")
    with (root / "tasks.yaml").open("a", encoding="utf-8") as tasks:
        tasks.write(TASK)
    return root


REFUSAL = (
    f"error: skills/release-notes/SKILL.md:5: the simulator cannot follow skill release-notes ({NOTHING_TO_READ}): "
    "its golden would record nothing the skill asks for; record it with a live upstream or a real harness, "
    "or pass --allow-unfollowed\n"
)


def test_a_free_form_skill_is_refused_one_line_per_skill(project: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["record", "release-notes-01", "github-triage-01", "--project", str(project)])
    assert result.exit_code == 2
    assert result.stdout.splitlines()[1].split()[:3] == ["release-notes-01", "release-notes", "release-notes"]
    assert result.stdout.splitlines()[-1].startswith("routing: 2 tasks, 0 misrouted")
    assert result.stderr == REFUSAL + "error: 1 skill(s) the simulator cannot follow; nothing was recorded\n"
    assert pending_traces(tmp_path) == []


def test_with_the_flag_it_is_recorded_with_a_warning(project: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["record", "release-notes-01", "github-triage-01", "--allow-unfollowed", "--project", str(project)]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        f"warning: the simulator could not follow skill release-notes (skills/release-notes/SKILL.md:5: "
        f"{NOTHING_TO_READ}); its goldens hold what the simulator did, not what the skill asks: a live upstream "
        "or a real harness is needed to record it\n"
    )
    assert result.stdout.splitlines()[-1] == f"recorded 2 pending trace(s) in {tmp_path / 'home' / 'pending'}"
    assert pending_traces(tmp_path) == ["github-triage-01.json", "release-notes-01.json"]


def test_a_followable_skill_alone_is_not_refused(project: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["record", "github-triage-01", "--project", str(project)])
    assert (result.exit_code, result.stderr) == (0, "")


def test_a_live_upstream_is_not_checked(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A live model reads prose: only the simulator's limits are refused."""
    assert [u.skill for u in plan_record(load_project(project), ["release-notes-01"]).unfollowed] == ["release-notes"]
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    assert plan_record(load_project(project), ["release-notes-01"]).unfollowed == []


def test_record_tasks_strict_refuses_it_too(project: Path, tmp_path: Path) -> None:
    loaded = load_project(project)
    with pytest.raises(SkillError, match=r"^skills/release-notes/SKILL.md:5: the simulator cannot follow"):
        record_tasks(loaded, ["release-notes-01"], strict=True)
    assert pending_traces(tmp_path) == []
    assert record_tasks(loaded, ["release-notes-01"], strict=True, allow_unfollowed=True).written == [
        "release-notes-01"
    ]
