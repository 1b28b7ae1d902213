from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.world import World, load_world

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"


@pytest.fixture
def bench_world() -> World:
    return load_world(
        REPO / "bench/world", workspaces_dir=REPO / "bench/workspaces", workspace="fx-weekend-trip", frozen_time=CLOCK
    )
