"""Simulated models by tier (the offline upstream)."""

from __future__ import annotations

from ratchet.errors import ConfigError
from ratchet.llm.types import ChatModel
from ratchet.sim.agent import SimAgentModel


def sim_model_for(tier: str, *, noise: float = 0.0) -> ChatModel:
    """The simulated model for a tier. Agent and the judge tiers (nano, super, ultra)."""
    if tier == "agent":
        return SimAgentModel(noise=noise)
    if tier in ("nano", "super", "ultra"):
        from ratchet.sim.judges import SimJudge

        return SimJudge(tier)
    raise ConfigError(f"no simulated model for tier {tier!r} (agent, nano, super, ultra)")
