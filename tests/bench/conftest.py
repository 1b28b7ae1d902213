"""A small bench project (two skills, their tasks, the canaries), built once per session and copied per test."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from ratchet.bench.build.build import BuildOptions, BuildResult, build_bench

SOURCE = Path(__file__).resolve().parents[2]
SKILLS = ("fx-expense-converter", "github-triage")


def make_project(root: Path, skills: tuple[str, ...] = SKILLS) -> Path:
    """A project holding `skills` with their tasks, the canaries, the world, workspaces and fixtures (the packaged prompts)."""
    root.mkdir(parents=True, exist_ok=True)
    for name in skills:
        shutil.copytree(SOURCE / "skills" / name, root / "skills" / name)
    for folder in ("world", "workspaces", "fixtures"):
        shutil.copytree(SOURCE / "bench" / folder, root / "bench" / folder)
    raw = yaml.safe_load((SOURCE / "bench" / "tasks.yaml").read_text(encoding="utf-8"))
    raw["tasks"] = [t for t in raw["tasks"] if t.get("skill") in (*skills, None)]
    (root / "bench" / "tasks.yaml").write_text(
        yaml.safe_dump(raw, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    shutil.copy2(SOURCE / "ratchet.yaml", root / "ratchet.yaml")
    return root


@pytest.fixture(scope="session")
def built_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, BuildResult]:
    root = make_project(tmp_path_factory.mktemp("bench-template") / "project")
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    mp.setenv("RATCHET_HOME", str(root / "var" / "home"))
    try:
        result = build_bench(root, BuildOptions(work=root / "var" / "bench"))
    finally:
        mp.undo()
    return root, result


@pytest.fixture
def bench_project(built_template: tuple[Path, BuildResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the built project (with its work area, so replays hit the cache)."""
    root = tmp_path / "project"
    shutil.copytree(built_template[0], root, symlinks=True)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.chdir(root)
    return root


@pytest.fixture(scope="session")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The mini dataset (tests.bench.fixtures_mini), built once per session; test modules may shadow it."""
    from tests.bench.fixtures_mini import build_mini_dataset

    return build_mini_dataset(tmp_path_factory.mktemp("mini") / "root")


@pytest.fixture
def mini(mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the mini dataset for one test, on the simulator."""
    from tests.bench.fixtures_mini import mini_copy

    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("RATCHET_HOME", raising=False)
    return mini_copy(mini_template, tmp_path / "root")
