"""Configuration: ratchet.yaml in the project root, overridden by RATCHET_* environment variables.

Paths in ratchet.yaml are relative to the project root. Tiers map a role (agent, nano,
super, ultra, injector) to a model id and api base; prices are USD per token. The
environment is read by ratchet.config.env; `retry` and `timeout_s` shape every model call.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from ratchet.config.env import RatchetEnv, Upstream, read_env, utc_instant
from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.config.retry import RetryPolicy
from ratchet.core.errors import ConfigError, InputError, validation_summary
from ratchet.core.jsonio import read_utf8
from ratchet.core.yamlio import load_yaml_text

CONFIG_FILE = "ratchet.yaml"
CONFIG_SCHEMA_VERSION = 1
DEFAULT_CLOCK = "2026-10-14T16:00:00Z"
DEFAULT_TIMEOUT_S = 120.0
DEFAULT_ROUTING_NEIGHBOURS = 3
# lexical: the runner routes with the trigger matcher and puts the fired skill in the system prompt.
# model: the system prompt lists the skill catalog and the model loads a skill by a tool call, as
# real harnesses do (ratchet/agent/catalog.py); selection then also replays catalog neighbours.
Routing = Literal["lexical", "model"]
# How a tier is offered tools: the provider's native tool calls, or described in text (docs/adr/0004-gateway.md).
ToolProtocol = Literal["native", "text"]
# What the behavioural diff alone decides when no replay exercised a change it names (ratchet.gate.static).
StaticPolicy = Literal["warn", "block"]

__all__ = [
    "CONFIG_FILE",
    "DEFAULT_CLOCK",
    "DEFAULT_TIMEOUT_S",
    "Paths",
    "Price",
    "Project",
    "RatchetConfig",
    "RetryPolicy",
    "Routing",
    "StaticPolicy",
    "TierConfig",
    "ToolProtocol",
    "Upstream",
    "default_home",
    "load_project",
    "parse_config",
    "project_from_text",
    "project_root",
    "refuse_world_at_nothing",
    "world_at_nothing",
]


class Paths(BaseModel):
    """Where the project keeps its skills, tasks, goldens and world (relative to the root)."""

    model_config = ConfigDict(extra="forbid")

    skills: str = "skills"
    tasks: str = "tasks.yaml"
    goldens: str = "goldens"
    world: str = "world"
    workspaces: str = "workspaces"

    @field_validator("skills", "tasks", "goldens", "world", "workspaces")
    @classmethod
    def _inside_project(cls, value: str) -> str:
        # Every path is read from (and bless writes into) root / value, and check reads it at a
        # revision through git: outside the project neither means anything, and a NUL is no path.
        if "\0" in value:
            raise PydanticCustomError("project_path", "must be a relative path inside the project, without NUL bytes")
        normal = posixpath.normpath(value)
        if posixpath.isabs(normal) or normal == ".." or normal.startswith("../"):
            raise PydanticCustomError(
                "project_path", "must be a relative path inside the project, not {value}", {"value": repr(value)}
            )
        return value


class TierConfig(BaseModel):
    """One model tier."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="litellm model id, e.g. openai/gpt-4o-mini or nebius/...")
    api_base: str | None = None
    api_key_env: str | None = Field(default=None, description="Name of the env var holding the key.")
    tool_protocol: ToolProtocol = "native"
    max_tokens: int = 1024


class Price(BaseModel):
    """USD per token. An explicit 0 is allowed (a local model)."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


NEBIUS_BASE = "https://api.tokenfactory.nebius.com/v1/"


def _default_tiers() -> dict[str, TierConfig]:
    def nebius(model: str, max_tokens: int) -> TierConfig:
        return TierConfig(
            model=f"openai/{model}", api_base=NEBIUS_BASE, api_key_env="NEBIUS_TOKEN_FACTORY_KEY", max_tokens=max_tokens
        )

    return {
        "agent": nebius("nvidia/Llama-3_3-Nemotron-Super-49B-v1_5", 5000),
        "nano": nebius("nvidia/NVIDIA-Nemotron-Nano-9B-v2", 300),
        "super": nebius("nvidia/Llama-3_3-Nemotron-Super-49B-v1_5", 1000),
        "ultra": nebius("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1", 2000),
        "injector": nebius("nvidia/Llama-3_1-Nemotron-Ultra-253B-v1", 4000),
    }


def _default_prices() -> dict[str, Price]:
    return {
        "openai/nvidia/NVIDIA-Nemotron-Nano-9B-v2": Price(input=0.04e-6, output=0.16e-6),
        "openai/nvidia/Llama-3_3-Nemotron-Super-49B-v1_5": Price(input=0.10e-6, output=0.40e-6),
        "openai/nvidia/Llama-3_1-Nemotron-Ultra-253B-v1": Price(input=0.60e-6, output=1.80e-6),
    }


class RatchetConfig(BaseModel):
    """The whole of ratchet.yaml."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = CONFIG_SCHEMA_VERSION
    paths: Paths = Field(default_factory=Paths)
    clock: str = DEFAULT_CLOCK
    upstream: Upstream = "sim"
    tiers: dict[str, TierConfig] = Field(default_factory=_default_tiers)
    prices: dict[str, Price] = Field(default_factory=_default_prices)
    max_agent_turns: int = Field(default=16, ge=1, le=100)
    retry: RetryPolicy = Field(default_factory=RetryPolicy, description="Backoff for 429, 5xx and timeouts.")
    timeout_s: float = Field(default=DEFAULT_TIMEOUT_S, gt=0, description="Per attempt, for live model calls.")
    routing: Routing = Field(
        default="lexical",
        description="Who routes a task in the minimal runner: the lexical trigger matcher, or the model "
        "reading the skill catalog and calling load_skill.",
    )
    routing_neighbours: int = Field(
        default=DEFAULT_ROUTING_NEIGHBOURS,
        ge=0,
        le=100,
        description="With routing: model, check also replays the tasks of this many skills whose "
        "descriptions are nearest the edited skill's.",
    )
    sim_noise: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="Upstream sim only: the chance a simulated replay varies (reworded framing or an added "
        "closing line), so noise records and repeated replays can be tried offline. Live agents bring their own.",
    )
    harness: HarnessSettings = Field(
        default_factory=HarnessSettings,
        description="The agent that runs a task: minimal (Ratchet's runner), claude-code, codex or command "
        "(docs/harnesses.md).",
    )
    static: StaticPolicy = Field(
        default="warn",
        description="What the behavioural diff decides on its own (docs/diff.md): an added side-effect action, a "
        "removed or weakened rule, content after a skill-closing line or a dangerous script line in a skill no "
        "replay exercised floors the edit at WARN (warn) or BLOCK (block).",
    )

    @property
    def routes_by_model(self) -> bool:
        """The model picks the skill from a catalog: routing: model, or any real harness."""
        return self.routing == "model" or not self.harness.is_minimal

    @field_validator("clock")
    @classmethod
    def _clock_is_utc(cls, value: str) -> str:
        return utc_instant(value)


class Project(BaseModel):
    """A resolved project: its root, its config and its work area."""

    root: Path
    config: RatchetConfig
    home: Path = Field(description="Work area: store, caches, pending traces, scratch dirs.")

    def path(self, name: Literal["skills", "tasks", "goldens", "world", "workspaces"]) -> Path:
        relative: str = getattr(self.config.paths, name)
        return self.root / relative

    def agent_max_tokens(self) -> int:
        """Output cap for one agent turn: the agent tier's max_tokens (small local models never stop)."""
        tier = self.config.tiers.get("agent")
        return tier.max_tokens if tier is not None else 1024

    @property
    def agent_tool_protocol(self) -> ToolProtocol:
        """The agent tier's tool protocol: what a recorded or replayed trace keeps as its `tool_protocol`."""
        tier = self.config.tiers.get("agent")
        return tier.tool_protocol if tier is not None else "native"

    @property
    def pending_dir(self) -> Path:
        return self.home / "pending"

    def with_harness(self, name: HarnessName | None) -> Project:
        """This project run through another harness (`--harness`), its other harness options kept."""
        if name is None or name == self.config.harness.name:
            return self
        current = self.config.harness.model_dump()
        current.update(name=name, command=current["command"] if name == "command" else None)
        try:
            settings = HarnessSettings.model_validate(current)
        except ValidationError as exc:
            raise ConfigError(f"--harness {name}: {validation_summary(exc)}", path=CONFIG_FILE) from None
        return self.model_copy(update={"config": self.config.model_copy(update={"harness": settings})})


def parse_config(text: str, *, source: str) -> RatchetConfig:
    raw = load_yaml_text(text, source=source, error=ConfigError)
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError("expected a mapping at the top level", path=source, line=1)
    if raw.get("schema_version", CONFIG_SCHEMA_VERSION) != CONFIG_SCHEMA_VERSION:
        raise ConfigError(f"unsupported schema_version {raw.get('schema_version')!r}", path=source)
    try:
        return RatchetConfig.model_validate(raw)
    except ValidationError as exc:
        raise ConfigError(validation_summary(exc), path=source) from None


def _env_overrides(config: RatchetConfig, env: RatchetEnv) -> RatchetConfig:
    update: dict[str, str] = {}
    if env.upstream is not None:
        update["upstream"] = env.upstream
    if env.clock is not None:
        update["clock"] = env.clock
    return config.model_copy(update=update) if update else config


def default_home(root: Path, env: RatchetEnv | None = None) -> Path:
    """RATCHET_HOME, else a per-project folder in the user's cache (never inside the work tree)."""
    env = env or read_env()
    if env.home is not None:
        return env.home.expanduser().resolve()
    cache = env.xdg_cache_home or Path.home() / ".cache"
    slug = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:12]
    return cache / "ratchet" / f"{root.resolve().name}-{slug}"


def work_area(root: Path, home: Path | None, env: RatchetEnv | None = None) -> Path:
    """The work area of a project at `root`: `home` as given (`--work`), else default_home."""
    return home.resolve() if home else default_home(root, env)


def load_project(root: Path, *, home: Path | None = None) -> Project:
    """Read ratchet.yaml (optional: defaults apply when absent) and the environment.

    The root must be a folder and the work area must not be a file; both are checked here, before
    any command reads or writes, so the mistake is named rather than found halfway through.
    """
    root = project_root(root)
    path = root / CONFIG_FILE
    text = read_utf8(path, error=ConfigError) if path.exists() else None
    project = project_from_text(root, text, source=str(path), home=home)
    _refuse_links_out(project)
    _refuse_file_as_work_area(project.home)
    return project


def world_at_nothing(where: str) -> str:
    """What record, noise and check say of a paths.world set in ratchet.yaml that names nothing at `where`."""
    return (
        f"paths.world: no world at {where}: fix the path in {CONFIG_FILE}, or remove the setting to run with no world"
    )


def refuse_world_at_nothing(project: Project) -> None:
    """ConfigError naming paths.world when the team set it and it names nothing in the working tree.

    The default world folder may be missing (a project with no world); a path set in ratchet.yaml
    that names nothing is a typo, and recording under it would bless goldens made with no world.
    """
    world = project.config.paths.world
    if world != Paths.model_fields["world"].default and not project.path("world").exists():
        raise ConfigError(world_at_nothing(world), path=project.root / CONFIG_FILE)


def _refuse_links_out(project: Project) -> None:
    """ConfigError naming the first paths.* setting that a symlink leads out of the project.

    The validator keeps each value inside the project as written; a link can still carry it out (`skills ->
    ~/x`), and then record, noise and validate would read, and the harness copy into a sandbox, the machine's
    files. Only a working tree is checked here: check reads the base through git, where a link is a file.
    """
    for name in ("skills", "tasks", "goldens", "world", "workspaces"):
        value: str = getattr(project.config.paths, name)
        path = project.root
        for part in Path(value).parts:
            path = path / part
            if path.is_symlink() and not _inside(path, project.root):
                raise ConfigError(
                    f"paths.{name}: {path.relative_to(project.root).as_posix()} is a symlink to "
                    f"{os.readlink(path)!r}, which leads outside the project: Ratchet reads only the project's "
                    f"own tree; move it into the project, or fix the path in {CONFIG_FILE}",
                    path=project.root / CONFIG_FILE,
                )


def _inside(path: Path, root: Path) -> bool:
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a link loop leads nowhere inside
        return False


def project_root(root: Path) -> Path:
    """`root` resolved; an InputError naming it (as given) when it is a file or missing."""
    if not root.is_dir():
        what = "this is a file" if root.exists() else "no such folder"
        raise InputError(f"{what}, but a project root must be the folder that holds {CONFIG_FILE}", path=root)
    return root.resolve()


def _refuse_file_as_work_area(home: Path) -> None:
    """The check ratchet.store.work_area.ensure_work_area makes, without creating anything (loading writes nothing)."""
    blocker = next((p for p in (home, *home.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise InputError(
            "this is a file, but Ratchet's work area (RATCHET_HOME or --work) must be a folder; "
            "point it at a folder or move the file away",
            path=blocker,
        )


def project_from_text(root: Path, text: str | None, *, source: str, home: Path | None = None) -> Project:
    """A project at `root` whose ratchet.yaml is `text` (None: absent, defaults apply), plus the environment.

    `ratchet check` reads the text from the base revision (`source` names it, e.g. ratchet.yaml@1a2b3c4d5e),
    so the edit under review cannot change the settings it is gated with (docs/adr/0011).
    """
    root = root.resolve()
    config = parse_config(text, source=source) if text is not None else RatchetConfig()
    env = read_env()
    config = _env_overrides(config, env)
    return Project(root=root, config=config, home=work_area(root, home, env))
