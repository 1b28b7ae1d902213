"""What a verdict says about a change of the agent between base and head (ratchet.gate.model_change, docs/adr/0023).

Data only, in its own module: ratchet.gate.models (the Verdict) holds one field of this type.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.core.chat import USD

SkillDecision = Literal["PASS", "WARN", "BLOCK"]


class AgentSide(BaseModel):
    """The agent on one side of the change: its model id and the harness it runs through."""

    model: str = Field(description="The agent tier's model id in ratchet.yaml (tiers.agent.model).")
    harness: str = Field(description="The harness's name (with its binary when ratchet.yaml pins one).")


class SkillReplayed(BaseModel):
    """One skill's goldens under the head's agent."""

    skill: str = Field(description="The goldens' skill folder (_none: the canaries, which no skill answers).")
    goldens: int = Field(ge=0, description="Goldens of this skill at the base.")
    replayed: int = Field(ge=0, description="Of them, replayed under the head's agent.")
    regressed: list[str] = Field(default_factory=list, description="Task ids whose pair blocks (a regression).")
    decision: SkillDecision | None = Field(
        description="The pair decision over this skill's replayed goldens; null: none was replayed (at least WARN)."
    )


class ModelChange(BaseModel):
    """The agent changed between base and head (or `--agent-model`): every golden, or a seeded sample stratified
    by skill under the budget, was replayed under the head's agent and judged by the base's gate."""

    base: AgentSide
    head: AgentSide
    fields: list[str] = Field(description="The agent settings that differ, e.g. tiers.agent.model, harness.bin.")
    declared: bool = Field(default=False, description="Given as `--agent-model` rather than read from ratchet.yaml.")
    goldens_total: int = Field(ge=0, description="Goldens at the base (every one is affected by an agent change).")
    replayed: int = Field(ge=0, description="Goldens replayed under the head's agent.")
    sampled: bool = Field(
        default=False, description="The estimate did not fit the budget: a seeded sample stratified by skill ran."
    )
    estimate_usd: USD = Field(
        default=0.0,
        description="The agent replays' estimate before any call: tokens on the goldens x the head's price.",
    )
    every_usd: USD = Field(
        default=0.0, description="The estimate for every golden (more than the budget when sampled)."
    )
    spent_usd: USD = Field(default=0.0, description="What the replayed pairs cost (replays and judges).")
    simulated: bool = Field(default=True, description="Simulated dollars (upstream: sim).")
    skills: list[SkillReplayed] = Field(default_factory=list, description="Per skill, in name order.")
