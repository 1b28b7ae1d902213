"""The demo skills project for tests.

`demo_repo` (a fixture): a blessed demo repository, built once per test session and copied per test.
`demo_project(tmp_path, monkeypatch)`: a plain copy of the packaged demo files (no git, nothing recorded),
with `pending_traces(tmp_path)` naming what `ratchet record` wrote there.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet.data import demo_files
from ratchet.setup.demo import build_demo_repo


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


def demo_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the packaged demo project (two skills, 23 tasks) at tmp_path/proj, on the simulator,
    with RATCHET_HOME at tmp_path/home."""
    root = tmp_path / "proj"
    with demo_files() as source:
        shutil.copytree(source, root, copy_function=shutil.copyfile)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CI", raising=False)
    return root


def pending_traces(tmp_path: Path) -> list[str]:
    """The file names of the pending traces under a `demo_project`'s RATCHET_HOME, sorted."""
    pending = tmp_path / "home" / "pending"
    return sorted(p.name for p in pending.iterdir()) if pending.exists() else []
