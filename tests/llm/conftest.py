"""Fixtures for the gateway tests: a tmp project, a real store, env kept clean."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# tests/helpers must import as `tests.helpers` however pytest was started.
_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from ratchet.config.project import Project, RatchetConfig  # noqa: E402
from ratchet.store.db import Store, open_store  # noqa: E402


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RATCHET_BENCH_USD_CAP", "RATCHET_UPSTREAM", "RATCHET_HOME"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def sim_project(tmp_path: Path) -> Project:
    return Project(root=tmp_path, config=RatchetConfig(upstream="sim"), home=tmp_path / "home")


@pytest.fixture
def store(sim_project: Project) -> Iterator[Store]:
    s = open_store(sim_project.home)
    yield s
    s.close()
