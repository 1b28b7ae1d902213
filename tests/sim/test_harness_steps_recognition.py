"""Which spans of a skill's steps the simulator behind a harness takes as a command or a read
(ratchet/sim/harness_steps.py): only plain instructions to run or read, never a step that forbids it, a
`$variable`'s attribute or a version number. Read as a command, `Never run `git push`` would be a new write
and a false BLOCK for adding a warning; so every skill fixture of the repository is checked here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratchet.sim.harness_steps import READ, SHELL, harness_step_tools, rewrite_steps

REPO = Path(__file__).resolve().parents[2]
MADE_FOR_IT = REPO / "tests" / "data" / "weekly_report"


def _fixtures() -> dict[str, str]:
    """Every SKILL.md of the repository (skills/, tests/data, the packaged demo) and every bench edit's skill."""
    texts: dict[str, str] = {}
    for folder in (REPO / "skills", REPO / "tests" / "data", REPO / "ratchet" / "data"):
        for path in sorted(folder.rglob("SKILL.md")):
            texts[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8", errors="replace")
    for path in sorted((REPO / "bench" / "edits").glob("*.json")):
        texts[str(path.relative_to(REPO))] = json.loads(path.read_text(encoding="utf-8"))["skill_md"]
    return texts


def _rewritten(text: str) -> list[str]:
    """The lines of `text` the follower behind a harness with a shell and a reader takes differently."""
    after = rewrite_steps(text, commands=True, reads=True).split("\n")
    return [before for before, now in zip(text.split("\n"), after, strict=True) if before != now]


def test_no_skill_fixture_has_a_command_or_read_step_except_the_one_made_for_them() -> None:
    texts = _fixtures()
    assert len(texts) > 150  # skills/, tests/data, the demo and the bench's edits were all found
    made = {name for name in texts if (REPO / name).is_relative_to(MADE_FOR_IT)}
    assert made == {"tests/data/weekly_report/skills/weekly-report/SKILL.md"}
    found = {name: lines for name, text in texts.items() if name not in made and (lines := _rewritten(text))}
    assert found == {}
    assert [line.split(":")[0] for line in _rewritten(texts[made.pop()])] == [
        "1. Read the house rules",
        "2. Build the report",
        "4. Post it",
    ]


def _steps(*lines: str) -> str:
    return "## Steps\n\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "step",
    [
        "1. Never run `git push` here.",
        "1. Don't run `git push --force`.",
        "1. Don\u2019t run `git push --force`.",
        "1. Do not run `rm -rf build` in the workspace.",
        "1. Avoid running `gh pr merge`; ask first.",
        "1. You must not run `gh pr merge`.",
        "1. Run `git status` to look, but never `git push`.",
        "1. It should not read `references/secret.md`.",
        "1. Never do the following:\n   - run `git push`\n   - read `notes/private.md`",
        "1. Post it (do not\n   run `gh issue comment 7` twice).",
    ],
)
def test_a_step_that_forbids_a_command_or_read_is_not_one(step: str) -> None:
    assert _rewritten(_steps(step)) == []


@pytest.mark.parametrize(
    "step",
    [
        "1. Read `$issue.body` as `$text`.",
        "1. Run `echo $issue.title` as `$out`.",
        "1. Read the version `v4.2.0` off the tag.",
        "1. Read `acme/widgets` as `$repo`.",
        "1. Read `config.timeout` as `$limit`.",
        "1. Read `README` first.",
    ],
)
def test_an_attribute_a_version_or_a_name_is_not_a_command_or_a_file_to_read(step: str) -> None:
    assert _rewritten(_steps(step)) == []


@pytest.mark.parametrize(
    ("step", "tool"),
    [
        ("1. Run `git push origin main`.", SHELL),
        ("1. Read `notes.txt` as `$notes`.", READ),
        ("1. Read the rules: `references/policy.md` as `$policy`.", READ),
        ("1. Read `docs/$topic.md` as `$doc`.", READ),
        ("1. Never mind the noise.\n2. Run `python scripts/report.py` as `$report`.", SHELL),
    ],
)
def test_a_plain_instruction_to_run_or_read_still_is_one(step: str, tool: str) -> None:
    after = rewrite_steps(_steps(step), commands=True, reads=True)
    assert after.count(f"`{tool}(") == 1, after


def test_codex_follows_these_steps_only_with_its_shell_turned_on() -> None:
    # Off, Codex runs read-only, where the command shims cannot record: the steps stay prose, as before.
    assert harness_step_tools("codex", []) == frozenset()
    assert harness_step_tools("codex", ["shell"]) == frozenset({SHELL, READ})
