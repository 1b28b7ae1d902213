"""A blessed demo repository whose simulator varies (sim_noise 0.3), with noise records for a few goldens.

`watched_repo` (a fixture): a fresh copy per test; RATCHET_HOME is its .ratchet/. Recorded goldens: the
demo's 23; noise records (8 repeats each): RECORDED below, the rest have none.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.noise_repo import noise_cli

SIM_NOISE = 0.3
FX = tuple(f"fx-expense-converter-{n:02d}" for n in (1, 2, 3))
TRIAGE = tuple(f"github-triage-{n:02d}" for n in (1, 2, 3))
RECORDED = (*FX, *TRIAGE, "canary-01")
NOISE_REPEATS = 8


def set_sim_noise(repo: Path, chance: float) -> None:
    """ratchet.yaml's `sim_noise: chance` (the working tree; watch reads no git)."""
    config = repo / "ratchet.yaml"
    lines = [line for line in config.read_text(encoding="utf-8").splitlines() if not line.startswith("sim_noise:")]
    config.write_text("\n".join([*lines, f"sim_noise: {chance}"]) + "\n", encoding="utf-8")


@pytest.fixture(scope="session")
def _watched_template(_blessed_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("watch-template") / "repo"
    shutil.copytree(_blessed_template, root, symlinks=True)
    set_sim_noise(root, SIM_NOISE)
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    mp.setenv("RATCHET_HOME", str(root / ".ratchet"))
    try:
        code, out, err = noise_cli(root, *RECORDED, "--repeats", str(NOISE_REPEATS))
    finally:
        mp.undo()
    assert code == 0, out + err
    return root


@pytest.fixture
def watched_repo(_watched_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(_watched_template, root, symlinks=True)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_HOME", str(root / ".ratchet"))
    monkeypatch.delenv("CI", raising=False)
    return root
