"""Shared setup for live-path tests: a project whose tiers point at a FakeOpenAI server."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.project import Price, Project, RatchetConfig, TierConfig
from tests.helpers.fake_openai import FakeOpenAI

KEY_ENV = "RATCHET_TEST_KEY"
SENTINEL = "sk-SENTINEL-7f3a9c2e41b84d6a-do-not-print"
MODEL = "openai/fake-model"


def live_project(
    tmp_path: Path,
    server: FakeOpenAI,
    *,
    price: Price | None = None,
    priced: bool = True,
    key_env: str | None = KEY_ENV,
) -> Project:
    prices = {MODEL: price or Price(input=1e-6, output=2e-6)} if priced else {}
    tiers = {
        name: TierConfig(model=MODEL, api_base=server.base_url, api_key_env=key_env)
        for name in ("agent", "nano", "super", "ultra")
    }
    config = RatchetConfig(upstream="live", tiers=tiers, prices=prices)
    return Project(root=tmp_path, config=config, home=tmp_path / "home")


def injected_live_project(tmp_path: Path) -> Project:
    """A live, priced `nano` tier whose api_base nothing listens at: the test injects its model. The path every
    paid call takes: a reservation, and cache entries synced in batches (a simulated entry is never synced)."""
    tier = TierConfig(model=MODEL, api_base="http://127.0.0.1:9/v1")
    config = RatchetConfig(upstream="live", tiers={"nano": tier}, prices={MODEL: Price(input=1e-6, output=2e-6)})
    return Project(root=tmp_path, config=config, home=tmp_path / "home")
