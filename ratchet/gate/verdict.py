"""What the gate concludes: findings per pair, an outcome per pair, a decision per edit."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from ratchet.gate.drift import DriftEvidence
from ratchet.gate.opinion import Opinion
from ratchet.jsonio import canonical_dumps

VERDICT_SCHEMA_VERSION = 1

FindingKind = Literal[
    "routing_changed",
    "call_added",
    "call_removed",
    "args_changed",
    "new_side_effect",
    "output_changed",
    "volatile_changed",
    "replay_error",
]
Severity = Literal["hard", "diff", "info"]
Outcome = Literal["same", "pass", "drift", "regression", "unsure", "error"]
Decision = Literal["PASS", "WARN", "BLOCK"]


class Finding(BaseModel):
    """One deterministic difference between a golden and its replay."""

    kind: FindingKind
    severity: Severity = Field(description="hard: blocks on its own; diff: needs judging; info: context.")
    detail: str
    tool: str | None = None
    effect: str | None = None
    golden_index: int | None = Field(default=None, description="Tool call index in the golden.")
    replay_index: int | None = Field(default=None, description="Tool call index in the replay.")


class PairOutcome(BaseModel):
    """One (golden, replay) pair: why it was selected, what Level 0 found, what it came to."""

    task_id: str
    golden_skill: str | None
    replay_skill: str | None = None
    selected_because: Literal["routed", "trigger-neighbourhood"]
    outcome: Outcome
    decided_by: str = Field(description="level0, a judge tier, drift, or error.")
    reason: str
    findings: list[Finding] = Field(default_factory=list)
    cost_usd: float = 0.0
    latency_ms: float = 0.0
    error: str | None = None
    confidence: float | None = Field(
        default=None, description="Confidence of the deciding judge opinion; None when no judge decided."
    )
    opinions: list[Opinion] = Field(default_factory=list, description="Every tier's opinion, in escalation order.")
    drift: DriftEvidence | None = Field(default=None, description="What the drift check saw, when it ran.")
    hint: str | None = Field(default=None, description="What to do next, e.g. re-bless the golden after drift.")


class Verdict(BaseModel):
    """The gate's answer for one edit (one or more changed skills between two states)."""

    schema_version: int = VERDICT_SCHEMA_VERSION
    base: str
    head: str = Field(description="A commit sha, or '<index>' for --staged.")
    skills_changed: list[str]
    decision: Decision
    summary: str
    pairs: list[PairOutcome] = Field(default_factory=list)
    goldens_total: int = 0
    cost_usd: float = 0.0
    wall_ms: float = 0.0
    simulated: bool = True
    on_error: Literal["warn", "block"] = "warn"
    gate_config: str | None = Field(default=None, description="Name of the gate config that judged it.")

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))
