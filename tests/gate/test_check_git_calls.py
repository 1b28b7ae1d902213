"""A check runs a handful of git processes, not one per question (issue 16's repeated check)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import git

EDIT = {edit.branch: edit for edit in EDITS}


def _logging_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that appends its arguments to a log, then runs the real git."""
    real = shutil.which("git")
    assert real is not None
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_a_repeated_check_runs_at_most_ten_git_commands(
    demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, EDIT["edit/changed-argument"])
    config = resolve_gate_config("cascade")
    first = check_edit(demo_repo, base=base, head="edit/changed-argument", config=config)
    log = _logging_git(tmp_path, monkeypatch)
    again = check_edit(demo_repo, base="main", head="edit/changed-argument", config=config)
    commands = log.read_text(encoding="utf-8").split()
    assert again.decision == first.decision == "BLOCK"
    assert [(p.task_id, p.outcome) for p in again.pairs] == [(p.task_id, p.outcome) for p in first.pairs]
    assert len(commands) <= 10, commands
