from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app


def test_demo_gates_five_edits_offline(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "recorded and blessed 23 goldens on the simulator" in lines
    assert any(line.startswith("ok edit/cosmetic") and " PASS " in line for line in lines)
    assert any(
        line.startswith("ok edit/reworded-status") and " PASS " in line and "decided by: nano" in line for line in lines
    )
    assert any(line.startswith("ok edit/changed-argument") and " BLOCK " in line and "super" in line for line in lines)
    assert any(
        line.startswith("ok edit/new-side-effect") and " BLOCK " in line and "decided by: level0" in line
        for line in lines
    )
    assert any(line.startswith("ok edit/narrowed-description") and " BLOCK " in line for line in lines)
    assert "github-triage -> no skill ·" in " ".join(result.stdout.split())  # the routing change, on its row
    assert any(line.startswith("ok edit/cosmetic") and "$0.000000" in line for line in lines)
    assert "SIMULATED MODELS" in result.stdout
    assert "email_send(" in result.stdout
    assert (target / "goldens" / "github-triage" / "github-triage-01.json").is_file()


def test_demo_refuses_a_non_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("keep me", encoding="utf-8")
    result = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path.resolve()} is not empty; give --dir a new or empty folder\n"
    assert (tmp_path / "x").read_text(encoding="utf-8") == "keep me"


def test_demo_refuses_a_file_as_dir(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep me", encoding="utf-8")
    for target in (afile, afile / "inner"):
        result = CliRunner().invoke(app, ["demo", "--dir", str(target)])
        assert result.exit_code == 2
        assert result.stderr == f"error: {afile.resolve()} is a file; give --dir a new or empty folder\n"
    assert afile.read_text(encoding="utf-8") == "keep me"


def test_demo_commits_with_any_date_git_accepts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # GIT_AUTHOR_DATE in ISO 8601 with an offset is valid for git; GitPython's own parser refused it,
    # and the demo died with a traceback instead of committing.
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00+00:00")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00+00:00")
    target = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    log = subprocess.run(
        ["git", "log", "-1", "--format=%an <%ae> %aI", "main"], cwd=target, capture_output=True, text=True, check=True
    )
    assert log.stdout.strip().endswith("2026-01-01T00:00:00+00:00")


def test_demo_commits_run_none_of_the_users_git_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("prepare-commit-msg", "post-commit", "pre-commit", "commit-msg"):
        hook = hooks / name
        hook.write_text(f'#!/bin/sh\necho ran >> "{tmp_path / "hooks-ran"}"\n', encoding="utf-8")
        hook.chmod(0o755)
    config = tmp_path / "gitconfig"
    config.write_text(f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    result = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path / "demo")])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "hooks-ran").exists()
