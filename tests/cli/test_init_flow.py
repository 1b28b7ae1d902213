"""A team's first hour, from an empty git repository: init, one prose skill, two tasks, record.

The skill is written the way teams write them (prose, no backticked program), so the simulator
cannot follow it: `ratchet record` must show the routing table and say so, instead of blessing
goldens that hold nothing the skill asks for. No world file is written at any point.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit, git, make_repo

runner = CliRunner()

PROSE_SKILL = """---
name: release-notes
description: Write release notes for a new version of a project from its changelog. Use when asked for release notes or a changelog summary.
---
# Release notes

When someone asks for release notes, read what changed since the last release, group the
changes into features, fixes and breaking changes, and write a short, friendly summary that
a user of the project can read in a minute. Mention breaking changes first.
"""

TASKS = """schema_version: 1
tasks:
- id: notes-01
  skill: release-notes
  prompt: Write the release notes for version 2.1 of our app.
- id: notes-02
  skill: release-notes
  prompt: Can you draft release notes for the 3.0 release from the changelog?
"""


@pytest.fixture
def team_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository (no commit) after `ratchet init`, a prose skill and two tasks, committed."""
    repo = make_repo(tmp_path, {})
    monkeypatch.chdir(repo)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("CI", raising=False)
    initialized = runner.invoke(app, ["init"])
    assert (initialized.exit_code, initialized.stderr) == (0, "")
    assert "note:" not in initialized.stdout  # inside a git repository
    assert "skills: none yet; they will live in skills/" in initialized.stdout
    git(repo, "add", "-A")  # what init wrote: ratchet.yaml, tasks.yaml, world/README.md
    commit(repo, {"skills/release-notes/SKILL.md": PROSE_SKILL, "tasks.yaml": TASKS}, "our first skill")
    assert sorted(p.name for p in (repo / "world").iterdir()) == ["README.md"]
    return repo


def test_record_from_an_empty_repo_shows_routing_and_says_the_simulator_cannot_follow(team_repo: Path) -> None:
    result = runner.invoke(app, ["record"])
    assert "Traceback" not in result.output
    header = result.stdout.splitlines()[0].split()
    assert header[:3] == ["task", "expected", "fired"]
    rows = {line.split()[0]: line.split()[1:3] for line in result.stdout.splitlines()[1:3]}
    assert rows == {"notes-01": ["release-notes", "release-notes"], "notes-02": ["release-notes", "release-notes"]}
    assert re.search(r"(cannot|could not) follow skill release-notes", result.stderr), result.stderr
    assert "skills/release-notes/SKILL.md" in result.stderr
    assert "world" not in result.output  # no world was needed, none was asked for
    assert result.exit_code == 2
    assert git(team_repo, "status", "--porcelain") == ""


def test_a_prose_skill_recorded_anyway_is_never_a_silent_pass(team_repo: Path) -> None:
    recorded = runner.invoke(app, ["record", "--allow-unfollowed"])
    assert recorded.exit_code == 0, recorded.output
    assert re.search(r"(cannot|could not) follow skill release-notes", recorded.stderr)
    assert runner.invoke(app, ["bless"]).exit_code == 0
    goldens = {p.name: p.read_text(encoding="utf-8") for p in (team_repo / "goldens" / "release-notes").iterdir()}
    assert sorted(goldens) == ["notes-01.json", "notes-02.json"]
    base = commit(team_repo, {f"goldens/release-notes/{n}": t for n, t in goldens.items()}, "bless")
    commit(
        team_repo,
        {
            "skills/release-notes/SKILL.md": PROSE_SKILL.replace(
                "Mention breaking changes first.", "Leave breaking changes out."
            )
        },
        "edit",
    )
    checked = runner.invoke(app, ["check", "--base", base, "--level0-only", "--json"])
    assert checked.exit_code in (0, 1), checked.output
    # Never a silent PASS (ADR 0012): prose the simulator cannot read is a named outcome, at least WARN.
    assert json.loads(checked.stdout)["decision"] in ("WARN", "BLOCK")
