"""The free-form skills project for tests (tests/data/freeform: four skills with no backticked program).

`freeform` (a fixture): a git repository built from that folder, recorded and blessed on the
simulator with --allow-unfollowed (it can follow none of them), built once per test session and
copied per test; RATCHET_HOME is its .ratchet/ (git-ignored).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit, make_repo

CORPUS = Path(__file__).resolve().parents[1] / "data" / "freeform"
RECORD = ["record", "--allow-unfollowed"]  # the simulator cannot follow these skills: record them anyway


@pytest.fixture(scope="session")
def _freeform_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("freeform-template")
    files = {p.relative_to(CORPUS).as_posix(): p.read_text(encoding="utf-8") for p in CORPUS.rglob("*") if p.is_file()}
    repo = make_repo(root, {**files, ".gitignore": ".ratchet/\n"})
    runner = CliRunner()
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    mp.setenv("RATCHET_HOME", str(repo / ".ratchet"))
    try:
        for args in (RECORD, ["bless"]):
            result = runner.invoke(app, [*args, "--project", str(repo)])
            assert result.exit_code == 0, result.output
    finally:
        mp.undo()
    commit(repo, {}, "bless goldens")
    return repo


@pytest.fixture
def freeform(_freeform_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the blessed free-form repository, on the simulator, 250 columns wide."""
    repo = tmp_path / "repo"
    shutil.copytree(_freeform_template, repo, symlinks=True)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_HOME", str(repo / ".ratchet"))
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.delenv("CI", raising=False)
    return repo


def edited(repo: Path, path: str, old: str, new: str) -> dict[str, str | None]:
    """`{path: its text with old replaced by new}`, for `commit`; `old` must be there."""
    text = (repo / path).read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    return {path: text.replace(old, new)}
