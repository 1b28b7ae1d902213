"""Simulated models by tier (the offline upstream)."""

from __future__ import annotations

from ratchet.core.chat import ChatModel
from ratchet.core.errors import ConfigError
from ratchet.sim.agent import SimAgentModel
from ratchet.sim.version import sim_code_digest


def sim_model_for(tier: str, *, noise: float = 0.0) -> ChatModel:
    """The simulated model for a tier. Agent and the judge tiers (nano, super, ultra)."""
    if tier == "agent":
        return SimAgentModel(noise=noise)
    if tier in ("nano", "super", "ultra"):
        from ratchet.sim.judges import SimJudge

        return SimJudge(tier)
    raise ConfigError(f"no simulated model for tier {tier!r} (agent, nano, super, ultra)")


class Simulator:
    """The offline upstream as a Gateway is handed it: a model per tier, and the simulator's version,
    which is part of every simulated cache key (ratchet.sim.version)."""

    def model(self, tier: str, *, noise: float) -> ChatModel:
        return sim_model_for(tier, noise=noise)

    @property
    def version(self) -> str:
        return sim_code_digest()


SIMULATOR = Simulator()
"""The one simulator; stateless, so every gateway may share it."""
