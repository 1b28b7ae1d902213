"""A blessed demo skills repository, built once per test session and copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet.demo import build_demo_repo


@pytest.fixture(scope="session")
def _blessed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo-template") / "repo"
    root.mkdir()
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    try:
        build_demo_repo(root, root / ".ratchet")
    finally:
        mp.undo()
    return root


@pytest.fixture
def demo_repo(_blessed_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the blessed demo repository; RATCHET_HOME is its .ratchet/ (git-ignored)."""
    root = tmp_path / "repo"
    shutil.copytree(_blessed_template, root, symlinks=True)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_HOME", str(root / ".ratchet"))  # where the goldens were recorded (and cached)
    monkeypatch.delenv("CI", raising=False)
    return root
