"""Gate configuration: which judge tiers run and when they escalate, Level 0 and drift on/off.

The seven bench configurations (cascade, nano_only, super_only, ultra_only, drift_off,
level0_off, noise) are seven YAML files in configs/ read by this one model; the gate has
one code path and these fields are its only switches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ratchet.errors import ConfigError, validation_summary
from ratchet.gate.opinion import JudgeVerdict
from ratchet.yamlio import load_yaml_file

GATE_CONFIG_SCHEMA_VERSION = 1
REPO_ROOT = Path(__file__).resolve().parents[2]
PROMPTS_DIR = REPO_ROOT / "bench" / "prompts"
CONFIGS_DIR = REPO_ROOT / "configs"
DEFAULT_CONFIG = "cascade"


def _escalate_unsure() -> list[JudgeVerdict]:
    return ["unsure"]


class TierStep(BaseModel):
    """One judge tier in the escalation order."""

    model_config = ConfigDict(extra="forbid")

    tier: str = Field(description="Model tier name in ratchet.yaml (nano, super, ultra).")
    threshold: float = Field(
        ge=0.0, le=1.0, description="Below this confidence the next tier is asked (if there is one)."
    )
    escalate_on: list[JudgeVerdict] = Field(
        default_factory=_escalate_unsure, description="Verdicts that are escalated whatever the confidence."
    )
    max_input_tokens: int = Field(default=8000, ge=500, description="Per-call prompt budget.")
    max_output_tokens: int = Field(default=300, ge=50, description="Per-call answer budget.")


class DriftConfig(BaseModel):
    """How a moved volatile fact is confirmed."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    fixtures: str = Field(default="bench/fixtures", description="Offline search fixtures, relative to the project root.")
    search: Literal["fixtures", "tavily"] = Field(default="fixtures", description="tavily only with --live-tavily.")


class GateConfig(BaseModel):
    """Everything that decides how a differing pair is judged."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = GATE_CONFIG_SCHEMA_VERSION
    name: str = DEFAULT_CONFIG
    description: str = ""
    level0: bool = Field(default=True, description="Off: a Level 0 hard fail no longer decides alone; judges see it.")
    drift: DriftConfig = Field(default_factory=DriftConfig)
    tiers: list[TierStep] = Field(min_length=1)
    block_confidence: float = Field(
        default=0.7, ge=0.0, le=1.0, description="A judged regression at or above this blocks; below, it warns."
    )
    replays_per_golden: int = Field(default=1, ge=1, le=20)
    judge_prompt: str = Field(default="judge.md", description="Prompt file under bench/prompts/.")
    on_error: Literal["warn", "block"] | None = Field(default=None, description="None: the caller decides.")

    @model_validator(mode="after")
    def _unique_tiers(self) -> GateConfig:
        names = [step.tier for step in self.tiers]
        if len(set(names)) != len(names):
            raise ValueError(f"tiers must be distinct, got {names}")
        return self

    def prompt_path(self) -> Path:
        return PROMPTS_DIR / self.judge_prompt


def parse_gate_config(raw: object, *, source: str) -> GateConfig:
    if not isinstance(raw, dict):
        raise ConfigError("expected a mapping at the top level", path=source, line=1)
    version = raw.get("schema_version")
    if version != GATE_CONFIG_SCHEMA_VERSION:
        raise ConfigError(
            f"unsupported schema_version {version!r} (this Ratchet reads {GATE_CONFIG_SCHEMA_VERSION})", path=source
        )
    try:
        return GateConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(validation_summary(exc), path=source) from None


def load_gate_config(path: Path) -> GateConfig:
    """Read a gate config YAML; one-line ConfigError naming the file on anything wrong."""
    return parse_gate_config(load_yaml_file(path, error=ConfigError), source=str(path))


def resolve_gate_config(name_or_path: str) -> GateConfig:
    """A config by name (configs/<name>.yaml) or by path."""
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        path = CONFIGS_DIR / f"{name_or_path}.yaml"
    return load_gate_config(path)


def default_gate_config() -> GateConfig:
    """The full cascade, the same as configs/cascade.yaml (kept equal by a test)."""
    return GateConfig(
        name=DEFAULT_CONFIG,
        description="Nano screens, Super checks, Ultra adjudicates; Level 0 and drift on.",
        tiers=[
            TierStep(tier="nano", threshold=0.8, escalate_on=["unsure", "regression"], max_input_tokens=8000, max_output_tokens=300),
            TierStep(tier="super", threshold=0.7, escalate_on=["unsure"], max_input_tokens=12000, max_output_tokens=1000),
            TierStep(tier="ultra", threshold=0.0, escalate_on=["unsure"], max_input_tokens=15000, max_output_tokens=2000),
        ],
    )
