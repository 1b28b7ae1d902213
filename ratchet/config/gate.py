"""Gate configuration: which judge tiers run and when they escalate, Level 0 and drift on/off.

The configurations ship as YAML in the package (ratchet/data/configs/: cascade, nano_only,
super_only, ultra_only, drift_off, level0_off, state_diff_off, noise, level0_only) and are read by this one
model; the gate has one code path and these fields are its only switches. A project's own
configs/<name>.yaml overrides the packaged config of that name.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ratchet.core.errors import ConfigError, validation_summary
from ratchet.core.yamlio import load_yaml_file
from ratchet.data import packaged_config, packaged_config_names, packaged_prompt

GATE_CONFIG_SCHEMA_VERSION = 1
JudgeVerdict = Literal["same", "pass", "regression", "unsure"]
"""What a judge may answer about a pair (ratchet.gate.models.Opinion)."""
DEFAULT_CONFIG = "cascade"
PROJECT_CONFIGS_DIR = "configs"
DEFAULT_JUDGE_PROMPT = "judge.md"
AGENT_TIER = "agent"  # the tier that runs the tasks (ratchet.yaml's tiers); never a judge


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
    swap_check: bool = Field(
        default=False,
        description="Judge twice, the second time with the replay's output shown before the golden's; "
        "a disagreement is unsure and escalates.",
    )
    swap: Literal["always", "near_threshold"] = Field(
        default="always",
        description="With swap_check, when the second order is asked (docs/adr/0026): always, or near_threshold: "
        "only when the first order's confidence is within swap_margin of a cut-off that decides what happens "
        "(this tier's threshold when a tier follows, block_confidence for a regression) or its verdict "
        "contradicts the decision of the tier below.",
    )
    swap_margin: float = Field(
        default=0.1, ge=0.0, le=0.5, description="swap: near_threshold: how near a cut-off counts as near."
    )
    settle_regression_at: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="A regression at or above this confidence stops here instead of escalating, but only when "
        "Level 0 shows a concrete difference (a call, argument or routing finding not known to vary); "
        "None: never.",
    )

    @model_validator(mode="after")
    def _policy_fits(self) -> TierStep:
        if self.swap == "near_threshold" and not self.swap_check:
            raise ValueError(f"tier {self.tier!r}: swap: near_threshold needs swap_check: true")
        if self.settle_regression_at is not None:
            if "regression" not in self.escalate_on:
                raise ValueError(
                    f"tier {self.tier!r}: settle_regression_at needs regression in escalate_on "
                    "(otherwise a confident regression already stops here)"
                )
            if self.settle_regression_at < self.threshold:
                raise ValueError(
                    f"tier {self.tier!r}: settle_regression_at {self.settle_regression_at} is below its threshold "
                    f"{self.threshold}: a regression this tier would escalate for doubt cannot settle"
                )
        return self


class DriftConfig(BaseModel):
    """How a moved volatile fact is confirmed."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    fixtures: str = Field(
        default="bench/fixtures", description="Offline search fixtures, relative to the project root."
    )
    search: Literal["fixtures", "tavily"] = Field(default="fixtures", description="tavily only with --live-tavily.")


class TriggersConfig(BaseModel):
    """The check's trigger step (ratchet.gate.triggers, docs/adr/0025): how often each query runs, and the test."""

    model_config = ConfigDict(extra="forbid")

    repeats: int = Field(
        default=5,
        ge=0,
        le=50,
        description="Runs of each affected trigger query at base and at head when an edit changes what the "
        "catalog shows; 0: no trigger query runs.",
    )
    alpha: float = Field(
        default=0.05,
        gt=0.0,
        lt=1.0,
        description="Significance of the one-sided exact test per query, Holm-corrected over the queries run.",
    )


class GateConfig(BaseModel):
    """Everything that decides how a differing pair is judged."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = GATE_CONFIG_SCHEMA_VERSION
    name: str = DEFAULT_CONFIG
    description: str = ""
    level0: bool = Field(default=True, description="Off: a Level 0 hard fail no longer decides alone; judges see it.")
    state_diff: bool = Field(
        default=True,
        description="Level 0 compares the world each replay left behind with its golden's (a state_changed finding "
        "per differing path, shown to the judges); off: neither, so a configuration can measure its contribution.",
    )
    drift: DriftConfig = Field(default_factory=DriftConfig)
    tiers: list[TierStep] = Field(
        default_factory=list, description="Judge tiers in escalation order; empty: Level 0 alone decides."
    )
    block_confidence: float = Field(
        default=0.7, ge=0.0, le=1.0, description="A judged regression at or above this blocks; below, it warns."
    )
    judge_tpr_floor: float = Field(
        default=0.6,
        ge=0.0,
        le=1.0,
        description="`ratchet judges` flags a tier whose true-positive rate's 95% Wilson lower bound, on labeled "
        "pairs, is below this.",
    )
    judge_fpr_ceiling: float = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="`ratchet judges` flags a tier whose false-positive rate's 95% Wilson upper bound, on labeled "
        "pairs, is above this.",
    )
    replays_per_golden: int = Field(default=1, ge=1, le=20)
    max_replays: int = Field(
        default=5,
        ge=1,
        le=50,
        description="Most replays of one pair when it differs only where its golden is known to vary, or its judges "
        "are unsure on a golden known to vary (ratchet.gate.repeats); 1: never repeat.",
    )
    repeat_alpha: float = Field(
        default=0.05,
        gt=0.0,
        lt=1.0,
        description="Significance of the exact test a repeated pair must pass to BLOCK (Fisher, one-sided, "
        "against the golden's own flip rate).",
    )
    triggers: TriggersConfig = Field(default_factory=TriggersConfig)
    sim_noise: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Bench runs on the simulator: the chance a replay varies (reworded framing or an added line); "
        "`bench run --noise p` overrides it. A live agent brings its own noise; the gate never reads it.",
    )
    judge_prompt: str | None = Field(
        default=None,
        description="Judge prompt file, relative to this config file's folder; None: the packaged judge.md.",
    )
    on_error: Literal["warn", "block"] | None = Field(default=None, description="None: the caller decides.")
    # The folder of the YAML this config was read from (set by load_gate_config); None: built in code.
    _source_dir: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _unique_tiers(self) -> GateConfig:
        names = [step.tier for step in self.tiers]
        if len(set(names)) != len(names):
            raise ValueError(f"tiers must be distinct, got {names}")
        return self

    @model_validator(mode="after")
    def _settling_can_happen(self) -> GateConfig:
        for index, step in enumerate(self.tiers):
            if step.settle_regression_at is None:
                continue
            if index == len(self.tiers) - 1:
                raise ValueError(f"tier {step.tier!r}: settle_regression_at on the last tier has nothing to settle")
        return self

    @model_validator(mode="after")
    def _something_decides(self) -> GateConfig:
        if not self.tiers and not self.level0:
            raise ValueError("level0: false needs at least one judge tier (with no tiers Level 0 alone decides)")
        return self

    def prompt_path(self) -> Path:
        """The judge prompt: the packaged judge.md, or judge_prompt relative to the config's folder (else the cwd)."""
        if self.judge_prompt is None:
            return packaged_prompt(DEFAULT_JUDGE_PROMPT)
        if self._source_dir is None:
            return Path(self.judge_prompt)
        return self._source_dir / self.judge_prompt


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


def load_gate_config(path: Path, *, project_root: Path | None = None) -> GateConfig:
    """Read a gate config YAML; one-line ConfigError naming the file on anything wrong.

    Its judge_prompt must be a file inside the project (`project_root`) when the config is one of
    the project's own, else inside the config file's folder: a config cannot point its judge at
    a file elsewhere on the machine, and a typo is caught before any pair is judged.
    """
    config = parse_gate_config(load_yaml_file(path, error=ConfigError), source=str(path))
    config._source_dir = path.resolve().parent
    if config.judge_prompt is not None:
        _check_judge_prompt(config, path, project_root)
    return config


def _check_judge_prompt(config: GateConfig, path: Path, project_root: Path | None) -> None:
    in_project = (
        project_root is not None
        and config._source_dir is not None
        and config._source_dir.is_relative_to(project_root.resolve())
    )
    root = project_root.resolve() if in_project and project_root is not None else path.resolve().parent
    where = "the project" if in_project else "this config file's folder"
    prompt = config.prompt_path()
    try:
        resolved = prompt.resolve()
    except (OSError, RuntimeError) as exc:
        raise ConfigError(f"judge_prompt {config.judge_prompt!r}: cannot resolve it: {exc}", path=path) from None
    if not resolved.is_relative_to(root):
        raise ConfigError(
            f"judge_prompt {config.judge_prompt!r} points outside {where}: "
            f"put the prompt inside {where} and name it relative to the config file",
            path=path,
        )
    if not resolved.is_file():
        raise ConfigError(
            f"judge_prompt {config.judge_prompt!r} not found (relative to the config file's folder): "
            "fix the path, or drop judge_prompt to use the packaged judge",
            path=path,
        )


def gate_config_path(name_or_path: str, *, project_root: Path | None = None) -> Path:
    """The file a config comes from: a .yaml/.yml path as given; a name from the project's configs/, else the package."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml"):
        return path
    if project_root is not None:
        own = project_root / PROJECT_CONFIGS_DIR / f"{name_or_path}.yaml"
        if own.is_file():
            return own
    names = packaged_config_names()
    if name_or_path not in names:
        raise ConfigError(
            f"unknown gate config {name_or_path!r}: use one of {', '.join(names)}, "
            f"a {PROJECT_CONFIGS_DIR}/<name>.yaml in the project, or a path to a .yaml file"
        )
    return packaged_config(name_or_path)


def config_repo_path(name_or_path: str, repo_root: Path) -> str | None:
    """The repo path of a config given as a .yaml path inside the repository at `repo_root` (relative
    paths from the cwd); None for a config name or a path outside the repository (docs/adr/0011).

    A check reads such a config from the base, as it reads one given by name. The path is mapped as
    written first, so a head that turns `.github` into a symlink pointing away still names
    `.github/...`; then as resolved, so a link outside the repository into it names the repository's file.
    """
    path = Path(name_or_path)
    if path.suffix not in (".yaml", ".yml"):
        return None
    roots = dict.fromkeys((repo_root, repo_root.resolve()))
    for candidate in (Path(os.path.abspath(path)), path.resolve()):
        for root in roots:
            if candidate != root and candidate.is_relative_to(root):
                return candidate.relative_to(root).as_posix()
    return None


def resolve_gate_config(name_or_path: str, *, project_root: Path | None = None) -> GateConfig:
    """A config by name (the project's configs/<name>.yaml, else the packaged one) or by .yaml path."""
    return load_gate_config(gate_config_path(name_or_path, project_root=project_root), project_root=project_root)


def check_judge_tiers(config: GateConfig, configured: Collection[str], *, source: Path | str | None) -> None:
    """ConfigError naming the config (`source`, else its name) when a judge tier cannot judge.

    `configured` is ratchet.yaml's tiers. The agent tier runs the tasks: asked to judge, it answers
    with no verdict, and every pair ends in error (exit 3) after the replays were paid for; a tier
    ratchet.yaml does not configure cannot be called at all. Both are settings errors, found at load.
    """
    judges = ", ".join(sorted(name for name in configured if name != AGENT_TIER))
    named = "" if source is not None else f"gate config {config.name!r}: "
    for step in config.tiers:
        if step.tier == AGENT_TIER:
            raise ConfigError(
                f"{named}tier {AGENT_TIER!r} runs the tasks and is never a judge: name a judge tier ({judges})",
                path=source,
            )
        if step.tier not in configured:
            raise ConfigError(
                f"{named}unknown judge tier {step.tier!r} (ratchet.yaml configures: {judges}): "
                "add it under tiers: in ratchet.yaml or name a configured tier",
                path=source,
            )
