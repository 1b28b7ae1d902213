"""Never a silent PASS: edits to free-form skills, unsent files and skills no golden exercises, end to end.

A real temp git repo built from tests/data/freeform (four skills with no backticked program),
recorded and blessed on the simulator (the `freeform` fixture, tests/helpers/freeform_repo.py),
then `ratchet check` on an edit, through the CLI.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.cli import app
from ratchet.sim.follow import NOTHING_TO_READ
from tests.helpers.gitrepo import commit, git

runner = CliRunner()


def _unfollowed(skill: str) -> str:
    return (
        f"the simulator could not follow skill {skill} ({NOTHING_TO_READ}): "
        "a live upstream or a real harness is needed to check this edit"
    )


def _edit(repo: Path, path: str, old: str, new: str) -> dict[str, str | None]:
    text = (repo / path).read_text(encoding="utf-8")
    assert old in text
    return {path: text.replace(old, new)}


def _check(repo: Path, base: str, *extra: str) -> tuple[int, list[str]]:
    result = runner.invoke(app, ["check", "--repo", str(repo), "--base", base, *extra])
    return result.exit_code, result.stdout.splitlines()


def _decision(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith(("PASS  ", "WARN  ", "BLOCK  ")))


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def test_deleting_a_key_instruction_of_a_free_form_skill_warns_first_never_passes(freeform: Path) -> None:
    base = _head(freeform)
    line = "* Refunds over 200 EUR always need a supervisor's approval before you promise anything.\n"
    commit(freeform, _edit(freeform, "skills/refund-reply/SKILL.md", line, ""), "drop the approval rule")
    code, lines = _check(freeform, base)
    assert code == 0  # WARN exits 0, as every WARN does
    assert lines[:2] == [SIMULATED_CHECK_BANNER, "not checked: " + _unfollowed("refund-reply")]
    # The behavioural diff names the removed rule first (ratchet.gate.static), then what no replay could see.
    rule = (
        "the edit removes the rule 'Refunds over 200 EUR always need a supervisor's approval before you promise "
        "anything.' in skill refund-reply that no replay exercised (static: warn)"
    )
    assert _decision(lines).startswith("WARN  " + rule[:120])
    verdict = json.loads(runner.invoke(app, ["check", "--repo", str(freeform), "--base", base, "--json"]).stdout)
    assert (
        verdict["summary"]
        == f"{rule}; {_unfollowed('refund-reply')}; 1 affected golden(s) replayed without a regression"
    )
    assert (verdict["decision"], [(u["kind"], u["skill"], u["level"]) for u in verdict["unseen"]]) == (
        "WARN",
        [("unfollowed", "refund-reply", "warn")],
    )
    assert [p["outcome"] for p in verdict["pairs"]] == ["same"]  # Level 0 alone would have passed it


def test_a_cosmetic_reword_of_a_free_form_skill_says_the_same_honestly(freeform: Path) -> None:
    base = _head(freeform)
    commit(
        freeform,
        _edit(
            freeform, "skills/release-notes/SKILL.md", "Keep them short and concrete.", "Keep them brief and concrete."
        ),
        "reword",
    )
    code, lines = _check(freeform, base)
    assert (code, lines[1]) == (0, "not checked: " + _unfollowed("release-notes"))
    assert _decision(lines).startswith("WARN  " + _unfollowed("release-notes"))


def test_a_changed_reference_file_is_unsent(freeform: Path) -> None:
    base = _head(freeform)
    commit(
        freeform,
        _edit(
            freeform, "skills/onboarding-checklist/references/notes.md", "read-only in week one", "admin from day one"
        ),
        "platform hires get admin",
    )
    code, lines = _check(freeform, base)
    unsent = (
        "not checked: skills/onboarding-checklist/references/notes.md of skill onboarding-checklist changed, "
        "but the runner sends only SKILL.md's body to the agent: not replayed; review it, or check with a "
        "harness that loads it"
    )
    assert (code, lines[1:3]) == (0, ["not checked: " + _unfollowed("onboarding-checklist"), unsent])


def test_a_changed_frontmatter_key_the_runner_never_sends_is_unsent(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    base = _head(demo_repo)
    commit(
        demo_repo,
        _edit(demo_repo, "skills/fx-expense-converter/SKILL.md", "license:", "allowed-tools: Read Bash\nlicense:"),
        "let it run Bash",
    )
    code, lines = _check(demo_repo, base)
    assert (code, lines[1]) == (
        0,
        "not checked: frontmatter allowed-tools of skill fx-expense-converter changed, but "
        "the runner sends only SKILL.md's body to the agent: not replayed; review it, or "
        "check with a harness that loads it",
    )
    assert _decision(lines).startswith(
        "WARN  the edit allows the tool Bash (execute) in skill fx-expense-converter "
        "that no replay exercised (static: warn); frontmatter allowed-tools of skill "
        "fx-expense-converter changed"
    )


def test_a_changed_metadata_key_is_listed_and_changes_nothing(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    base = _head(demo_repo)
    commit(
        demo_repo,
        _edit(demo_repo, "skills/fx-expense-converter/SKILL.md", "owner: finance-ops", "owner: travel"),
        "new owner",
    )
    code, lines = _check(demo_repo, base)
    note = (
        "not checked by the simulator: frontmatter metadata of skill fx-expense-converter changed: read by people "
        "and registries, not by an agent"
    )
    assert code == 0 and note in lines
    assert _decision(lines).startswith("PASS  ")


def test_a_prose_edit_of_a_followable_skill_passes_and_lists_the_prose(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    base = _head(demo_repo)
    commit(
        demo_repo,
        _edit(
            demo_repo,
            "skills/fx-expense-converter/SKILL.md",
            "Convert every line of the report, show the rate you used, and total the result.",
            "Convert each line of the report, show which rate you used, and add it all up.",
        ),
        "reword",
    )
    code, lines = _check(demo_repo, base)
    assert code == 0
    assert lines[1].startswith("ratchet check  ")  # nothing unchecked leads
    prose = (
        "not checked by the simulator: 1 changed line(s) of skill fx-expense-converter are prose the simulator "
        "does not read (SKILL.md lines 12)"
    )
    assert prose in lines
    assert lines[lines.index(prose) + 1].startswith("PASS  ")


def test_a_new_skill_no_golden_exercises_warns(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    base = _head(demo_repo)
    skill = (
        "---\nname: haiku-writer\ndescription: Compose a haiku poem about the seasons.\n---\n"
        '## Output\n- `poem`: `"an old silent pond"`\n'
    )
    commit(demo_repo, {"skills/haiku-writer/SKILL.md": skill}, "a new skill")
    code, lines = _check(demo_repo, base)
    warn = "no golden exercises skill haiku-writer: record and bless a task for it (ratchet record, ratchet bless)"
    assert (code, lines[1]) == (0, "not checked: " + warn)
    assert _decision(lines) == "WARN  " + warn + "; no golden is affected by this edit"


def test_a_changed_file_under_the_skills_folder_that_belongs_to_no_skill_warns(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    base = _head(demo_repo)
    commit(demo_repo, {"skills/README.md": "Use the ECB reference rate in every skill.\n"}, "a note no skill holds")
    code, lines = _check(demo_repo, base)
    unowned = (
        "skills/README.md changed under the skills folder but belongs to no skill: not replayed; "
        "review it, or move it into the skill folder that uses it"
    )
    assert (code, lines[1]) == (0, "not checked: " + unowned)
    assert _decision(lines) == "WARN  " + unowned + "; no skill changed"
