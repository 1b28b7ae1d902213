"""A gate config given as a path inside the repository is read from the base, like one given by name.

Why: `ratchet check --config .github/ratchet-gate.yaml` (and the Action's `config:` input) read the
YAML from the pull request's own working tree, and a change to it was never named: a PR that set
`level0: false` and `block_confidence: 1.0` there turned the demo's new `email_send` from BLOCK into
WARN, exit 0, `settings_changed: []`. Now such a path is read at the base (so is every file the
config points at), a change to it at the head is a settings change named first, a path the base
does not have is one exit-2 line, and a path outside the repository is read as given.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet import SIMULATED_CHECK_BANNER
from ratchet.cli import app
from ratchet.core.errors import ConfigError
from ratchet.data import packaged_config, packaged_prompt
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git

GATE = ".github/ratchet-gate.yaml"
EDIT = {edit.branch: edit for edit in EDITS}
SETTINGS_NOTE = "the gate's own settings changed ({}): checked with the base's settings; review the change"
runner = CliRunner()


def cascade_text() -> str:
    return packaged_config("cascade").read_text(encoding="utf-8")


def softened(text: str) -> str:
    """The pull request's gate: Level 0 off and nothing sure enough to block."""
    assert "level0: true" in text and "block_confidence: 0.7" in text
    return text.replace("level0: true", "level0: false").replace("block_confidence: 0.7", "block_confidence: 1.0")


def edited(repo: Path, branch: str) -> dict[str, str]:
    edit = EDIT[branch]
    rel = f"skills/{edit.skill}/SKILL.md"
    return {rel: edit.apply((repo / rel).read_text(encoding="utf-8"))}


@pytest.fixture
def softening_pr(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str]:
    """main has the team's gate at .github/ratchet-gate.yaml; the PR softens it and adds the email_send step.

    Returns (repo, base sha, head sha), with the repository as the current folder (as in CI)."""
    base = commit(demo_repo, {GATE: cascade_text()}, "the team's gate config")
    head = commit(
        demo_repo,
        {GATE: softened(cascade_text()), **edited(demo_repo, "edit/new-side-effect")},
        "soften the gate and email finance",
    )
    monkeypatch.chdir(demo_repo)
    return demo_repo, base, head


# -- read from the base ---------------------------------------------------------------------------


def test_a_pull_request_cannot_soften_a_config_given_by_path(softening_pr: tuple[Path, str, str]) -> None:
    repo, base, head = softening_pr
    verdict = check_edit(repo, base=base, head=head, config=GATE, on_error="block")
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.settings_changed == [GATE]
    assert verdict.summary.startswith(SETTINGS_NOTE.format(GATE) + "; ")
    # The base's config decided: Level 0 on, so the new send call is a hard fail, no judge needed.
    assert {p.decided_by for p in verdict.pairs if p.outcome == "regression"} == {"level0"}


def test_the_cli_blocks_it_and_names_the_config_first(
    softening_pr: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    _, base, head = softening_pr
    result = runner.invoke(app, ["check", "--base", base, "--config", GATE])
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[:3] == [
        SIMULATED_CHECK_BANNER,
        f"settings changed: {GATE} (checked with the base's settings)",
        f"ratchet check  {base[:10]} -> {head[:10]}",
    ]


@pytest.mark.parametrize(("flag", "decision"), [("warn", "WARN"), ("block", "BLOCK")])
def test_a_change_to_the_config_alone_is_gated_like_ratchet_yaml(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch, flag: str, decision: str
) -> None:
    base = commit(demo_repo, {GATE: cascade_text()}, "the team's gate config")
    commit(demo_repo, {GATE: softened(cascade_text())}, "soften the gate")
    monkeypatch.chdir(demo_repo)
    verdict = check_edit(demo_repo, base=base, config=GATE, on_error=flag)
    assert (verdict.decision, verdict.settings_changed) == (decision, [GATE])
    assert verdict.summary == SETTINGS_NOTE.format(GATE) + "; no skill changed"


@pytest.mark.parametrize("spelling", ["absolute", "from-a-subfolder", "dot-dot"])
def test_every_spelling_of_a_path_inside_the_repository_is_read_from_the_base(
    softening_pr: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    repo, base, head = softening_pr
    given = {"absolute": str(repo / GATE), "from-a-subfolder": f"../{GATE}", "dot-dot": f"skills/../{GATE}"}[spelling]
    if spelling == "from-a-subfolder":
        monkeypatch.chdir(repo / "skills")
    verdict = check_edit(repo, base=base, head=head, config=given, on_error="block")
    assert (verdict.decision, verdict.settings_changed) == ("BLOCK", [GATE])


def test_a_head_that_turns_the_config_folder_into_a_symlink_is_still_read_from_the_base(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = commit(demo_repo, {GATE: cascade_text()}, "the team's gate config")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "ratchet-gate.yaml").write_text(softened(cascade_text()), encoding="utf-8")
    git(demo_repo, "rm", "-rq", ".github")
    os.symlink(elsewhere, demo_repo / ".github")
    git(demo_repo, "add", ".github")
    commit(demo_repo, edited(demo_repo, "edit/new-side-effect"), "a folder that points away")
    monkeypatch.chdir(demo_repo)
    verdict = check_edit(demo_repo, base=base, config=GATE, on_error="block")
    assert verdict.decision == "BLOCK", verdict.summary
    assert GATE in verdict.settings_changed


def test_a_config_the_base_does_not_have_is_one_line_exit_2(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = git(demo_repo, "rev-parse", "HEAD")
    commit(demo_repo, {GATE: softened(cascade_text()), **edited(demo_repo, "edit/new-side-effect")}, "bring my own")
    monkeypatch.chdir(demo_repo)
    with pytest.raises(ConfigError) as info:
        check_edit(demo_repo, base=base, config=GATE)
    assert info.value.one_line() == (
        f"gate config {GATE}: not in the base revision ({GATE}@{base[:10]}); the gate is read from the base, so a "
        "config this change adds takes effect once it is merged: check with a config the base has"
    )
    result = runner.invoke(app, ["check", "--base", base, "--config", GATE])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {info.value.one_line()}\n"


def test_a_config_outside_the_repository_is_read_as_given(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Whoever runs the check chose that file; the pull request cannot reach it.
    outside = tmp_path / "runner" / "gate.yaml"
    outside.parent.mkdir()
    outside.write_text(softened(cascade_text()), encoding="utf-8")
    base = git(demo_repo, "rev-parse", "HEAD")
    commit(demo_repo, edited(demo_repo, "edit/new-side-effect"), "email finance")
    monkeypatch.chdir(demo_repo)
    verdict = check_edit(demo_repo, base=base, config=str(outside), on_error="block")
    assert (verdict.decision, verdict.settings_changed) == ("WARN", [])
    assert "below block confidence" in verdict.summary


# -- what the config points at ----------------------------------------------------------------------


def test_the_judge_prompt_a_config_path_points_at_is_read_from_the_base_and_named(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = packaged_prompt("judge.md").read_text(encoding="utf-8")
    assert "version: judge-v4" in judge
    base = commit(
        demo_repo,
        {
            GATE: cascade_text() + "judge_prompt: judge.md\n",
            ".github/judge.md": judge.replace("version: judge-v4", "version: team-v1"),
        },
        "own judge",
    )
    commit(
        demo_repo,
        {
            ".github/judge.md": judge.replace("version: judge-v4", "version: friendly-v9"),
            **edited(demo_repo, "edit/changed-argument"),
        },
        "a friendlier judge",
    )
    monkeypatch.chdir(demo_repo)
    verdict = check_edit(demo_repo, base=base, config=GATE, on_error="block")
    assert verdict.settings_changed == [".github/judge.md"]
    assert verdict.decision == "BLOCK", verdict.summary
    versions = {o.prompt_version for p in verdict.pairs for o in p.opinions}
    assert versions == {"team-v1"}


def test_a_change_to_the_drift_fixtures_the_config_reads_is_named(demo_repo: Path) -> None:
    base = commit(demo_repo, {"bench/fixtures/fx.yaml": "schema_version: 1\nfacts: {}\n"}, "search fixtures")
    commit(demo_repo, {"bench/fixtures/fx.yaml": "schema_version: 1\nfacts: {fx.x: 1}\n"}, "evidence for a drift")
    verdict = check_edit(demo_repo, base=base, config="cascade", on_error="block")
    assert (verdict.decision, verdict.settings_changed) == ("BLOCK", ["bench/fixtures/fx.yaml"])
