"""`ratchet hook install`: exact output and exit codes through typer's CliRunner."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import git, make_repo

runner = CliRunner()


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    path = make_repo(tmp_path, {"skills/a/SKILL.md": "---\nname: a\ndescription: A.\n---\nBody\n"})
    monkeypatch.chdir(path)
    return path.resolve()


def test_installs_pre_push_by_default(repo: Path) -> None:
    result = runner.invoke(app, ["hook", "install"])
    hook = repo / ".git" / "hooks" / "pre-push"
    assert result.exit_code == 0
    assert result.stdout == f"installed pre-push hook: {hook}\n"
    assert result.stderr == ""
    assert hook.read_text().startswith("#!/bin/sh\n# ratchet-hook: pre-push")


def test_pre_commit_with_repo_from_elsewhere(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["hook", "install", "--pre-commit", "--repo", str(repo / "skills" / "a")])
    hook = repo / ".git" / "hooks" / "pre-commit"
    assert result.exit_code == 0
    assert result.stdout == f"installed pre-commit hook: {hook}\n"
    assert 'ratchet check --base "$base" --staged' in hook.read_text()


def test_respects_core_hooks_path(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", "ci/hooks")
    result = runner.invoke(app, ["hook", "install"])
    assert result.exit_code == 0
    assert result.stdout == f"installed pre-push hook: {repo / 'ci' / 'hooks' / 'pre-push'}\n"


def test_a_foreign_hook_needs_force(repo: Path) -> None:
    hook = repo / ".git" / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\nexit 0\n")

    refused = runner.invoke(app, ["hook", "install"])
    assert refused.exit_code == 2
    assert refused.stdout == ""
    assert refused.stderr == (
        f"error: {hook}: a pre-push hook not written by Ratchet is already installed; rerun with "
        "--force to replace it (the old hook is kept as pre-push.ratchet-backup)\n"
    )
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"

    forced = runner.invoke(app, ["hook", "install", "--force"])
    assert forced.exit_code == 0
    assert forced.stdout == f"installed pre-push hook: {hook}\n"
    assert (hook.parent / "pre-push.ratchet-backup").read_text() == "#!/bin/sh\nexit 0\n"

    again = runner.invoke(app, ["hook", "install"])  # ours now: no --force needed
    assert again.exit_code == 0


def test_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = (tmp_path / "plain").resolve()
    plain.mkdir()
    result = runner.invoke(app, ["hook", "install", "--repo", str(plain)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {plain}: not a git repository (or any parent); run inside a repo or pass --repo\n"
    )
