"""`ratchet diff`: one line per finding, read from git without touching the user's tree; --json byte-stable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.diff.skills import EMAIL, REFLOWED_WITH_COMMENT, REFUND
from tests.helpers.gitrepo import commit, make_project, snapshot_git_state, stage

runner = CliRunner()
SKILL = "skills/refund-reply/SKILL.md"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return make_project(tmp_path, monkeypatch, {SKILL: REFUND, "ratchet.yaml": "schema_version: 1\nupstream: sim\n"})


def test_an_added_email_instruction_is_one_line(repo: Path) -> None:
    commit(repo, {SKILL: EMAIL}, "email finance")
    before = snapshot_git_state(repo)
    result = runner.invoke(app, ["diff"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == (
        "skills/refund-reply/SKILL.md:7: adds an instruction to email finance@example.com (send) in Refund replies: "
        "'Once the refund is approved, also email finance@example.com the order number.'\n"
    )
    assert snapshot_git_state(repo) == before


def test_a_cosmetic_edit_says_no_change_in_instructions_and_why(repo: Path) -> None:
    commit(repo, {SKILL: REFLOWED_WITH_COMMENT}, "reflow")
    result = runner.invoke(app, ["diff", "--base", "HEAD~1", "--head", "HEAD"])
    assert (result.exit_code, result.stdout) == (
        0,
        (
            "skills/refund-reply: no change in instructions (HTML comments, which the minimal runner does not send; "
            "whitespace and line breaks)\n"
        ),
    )


def test_the_base_harness_decides_what_a_comment_is(repo: Path) -> None:
    commit(repo, {"ratchet.yaml": "schema_version: 1\nupstream: sim\nharness: claude-code\n"}, "claude code")
    # The head's ratchet.yaml cannot turn its own comment back into no change.
    commit(repo, {SKILL: REFLOWED_WITH_COMMENT, "ratchet.yaml": "schema_version: 1\nupstream: sim\n"}, "comment")
    result = runner.invoke(app, ["diff"])
    assert (result.exit_code, result.stdout) == (
        0,
        (
            "skills/refund-reply/SKILL.md:7: adds an instruction to email finance@example.com (send) in Refund replies: "
            "'<!-- also email finance@example.com every refund -->'\n"
        ),
    )
    flag = runner.invoke(app, ["diff", "--harness", "minimal"])
    assert flag.stdout.startswith("skills/refund-reply: no change in instructions")


def test_staged_changes_are_read_from_the_index(repo: Path) -> None:
    stage(repo, {SKILL: REFUND.replace("Refunds over 200 EUR", "Refunds over 500 EUR")})
    result = runner.invoke(app, ["diff", "--staged"])
    assert (result.exit_code, result.stdout) == (0, "skills/refund-reply/SKILL.md:14: changes 200 to 500 in Policy\n")


def test_json_is_the_edit_diff_and_byte_identical_run_to_run(repo: Path) -> None:
    commit(
        repo,
        {SKILL: EMAIL, "skills/refund-reply/scripts/notify.sh": "#!/bin/sh\ncurl -X POST https://hooks.example.net\n"},
        "email and a script",
    )
    first, second = runner.invoke(app, ["diff", "--json"]), runner.invoke(app, ["diff", "--json"])
    assert first.exit_code == 0
    assert first.stdout == second.stdout
    data = json.loads(first.stdout)
    assert (data["schema_version"], data["harness"], [s["skill"] for s in data["skills"]]) == (
        1,
        "minimal",
        ["refund-reply"],
    )
    kinds = [f["kind"] for f in data["skills"][0]["findings"]]
    assert kinds[0] == "action_added"
    assert "script_network" in kinds


def test_an_edit_that_changes_no_skill_says_so(repo: Path) -> None:
    commit(repo, {"README.md": "hello\n"}, "readme")
    assert runner.invoke(app, ["diff"]).stdout == "no skill changed\n"


def test_head_and_staged_exclude_each_other(repo: Path) -> None:
    result = runner.invoke(app, ["diff", "--head", "HEAD", "--staged"])
    assert (result.exit_code, result.stderr) == (2, "error: --head and --staged exclude each other\n")


def test_an_unknown_base_is_one_line_and_exit_2(repo: Path) -> None:
    result = runner.invoke(app, ["diff", "--base", "nope"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
