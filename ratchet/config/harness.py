"""`harness:` in ratchet.yaml: which agent runs a task when Ratchet records or replays it.

`minimal` is Ratchet's own runner (ratchet/agent/runner.py), the default. `claude-code` and
`codex` run the real CLI binaries over Ratchet's loopback model endpoint and MCP server;
`command` runs any other agent from a command template. Written either as a name
(`harness: claude-code`) or as a mapping with the options below. Models only: no stage here.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

HarnessName = Literal["minimal", "claude-code", "codex", "command"]
HARNESS_NAMES: tuple[HarnessName, ...] = ("minimal", "claude-code", "codex", "command")
SandboxMode = Literal["auto", "bubblewrap", "off"]
DEFAULT_HARNESS_TIMEOUT_S = 180.0

# Shell commands whose first word only reads: a harness's shell call running one of these is
# recorded with effect `read`; any other shell command is `write` (a new one is a hard fail).
DEFAULT_READ_COMMANDS: tuple[str, ...] = (
    "cat",
    "head",
    "tail",
    "ls",
    "pwd",
    "wc",
    "grep",
    "rg",
    "find",
    "file",
    "stat",
    "echo",
    "nl",
    "sort",
    "uniq",
)

# Commands a harness replay runs for real (linked into its bin/, the only PATH folder): local tools that
# reach no service. Anything else external (gh, git, curl ...) is a shim answering from <world>/commands.yaml.
DEFAULT_COMMANDS_ALLOW: tuple[str, ...] = (
    *("sh", "bash", "python3", "python", "env", "true", "false", "test", "echo", "printf", "pwd", "which", "id"),
    *("cat", "ls", "head", "tail", "grep", "sed", "awk", "wc", "sort", "uniq", "find", "tr", "cut", "xargs"),
    *("jq", "diff", "tee", "nl", "stat", "file", "basename", "dirname", "realpath", "readlink", "date"),
    *("mkdir", "cp", "mv", "rm", "touch", "ln", "chmod", "mktemp", "sleep", "timeout", "setsid", "kill"),
)
SHELL_TOOLS: frozenset[str] = frozenset({"Bash", "shell"})
"""In `builtin_tools`: the harness's shell may run commands (Claude Code's Bash; Codex: -s workspace-write)."""


class HarnessChoice(StrEnum):
    """The harness names as a command-line choice (`--harness`)."""

    MINIMAL = "minimal"
    CLAUDE_CODE = "claude-code"
    CODEX = "codex"
    COMMAND = "command"

    @property
    def harness_name(self) -> HarnessName:
        return self.value


COMMAND_PLACEHOLDERS: tuple[str, ...] = (
    "prompt",
    "workspace",
    "mcp_config",
    "proxy_url",
    "token",
    "home",
    "clock",
    "output",
)


class HarnessSettings(BaseModel):
    """How the harness is started; every field has a default except `command` for `command`."""

    model_config = ConfigDict(extra="forbid")

    name: HarnessName = "minimal"
    bin: str | None = Field(
        default=None,
        description="Path of the claude / codex binary (default: RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN, then PATH).",
    )
    command: str | None = Field(
        default=None,
        description="`command` harness: the command line, with "
        "{prompt} {workspace} {mcp_config} {proxy_url} {token} {home} {clock} {output}.",
    )
    skills_dir: str = Field(
        default=".agents/skills",
        description="`command` harness: where in the workspace the skill folders are installed.",
    )
    timeout_s: float = Field(
        default=DEFAULT_HARNESS_TIMEOUT_S,
        gt=0,
        le=3600,
        description="Wall-clock limit for one replay; past it the harness is killed and the replay is an error.",
    )
    builtin_tools: list[str] = Field(
        default_factory=list,
        description="Claude Code built-in tools allowed besides Skill (default none: skills and Ratchet's MCP "
        "tools only; Bash, Read ... turn them on); for Codex, `shell` lets its shell write in the workspace.",
    )
    commands_allow: list[str] = Field(
        default_factory=lambda: list(DEFAULT_COMMANDS_ALLOW),
        description="Commands a replay runs for real; other external ones are mocked (commands.yaml).",
    )
    read_commands: list[str] = Field(
        default_factory=lambda: list(DEFAULT_READ_COMMANDS),
        description="Shell commands recorded as reads; any other is a write.",
    )
    sandbox: SandboxMode = Field(
        default="auto",
        description="Run each replay under bubblewrap (Linux): auto (when it can run; the verdict says when it "
        "cannot), bubblewrap (required: exit 3 without it) or off (process group only).",
    )

    @model_validator(mode="before")
    @classmethod
    def _from_name(cls, value: Any) -> Any:
        return {"name": value} if isinstance(value, str) else value

    @field_validator("commands_allow")
    @classmethod
    def _command_names(cls, value: list[str]) -> list[str]:
        bad = [name for name in value if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}", name)]
        if bad:
            raise ValueError(f"harness.commands_allow: {bad[0]!r} is not a command name (a name, not a path)")
        return value

    @model_validator(mode="after")
    def _command_needs_template(self) -> HarnessSettings:
        if self.name == "command":
            if not self.command or not self.command.strip():
                raise ValueError(
                    "harness: command needs `command:`, the command line to run "
                    "(with {prompt} where the task's prompt goes)"
                )
            if "{prompt}" not in self.command:
                raise ValueError("harness.command: put {prompt} where the task's prompt goes")
        elif self.command is not None:
            raise ValueError(f"harness.command is only for `name: command`, not {self.name}")
        return self

    @property
    def is_minimal(self) -> bool:
        return self.name == "minimal"

    @property
    def shell_tools(self) -> bool:
        """Whether `builtin_tools` turns the harness's shell on (Bash, or `shell` for Codex)."""
        return bool(SHELL_TOOLS & set(self.builtin_tools))


TIMED_OUT = "timed out:"
"""What a replay's error starts with, after the harness's name, when the harness was killed at its timeout."""


def timeout_error(settings: HarnessSettings) -> str:
    """A replay killed at `harness.timeout_s`, named as a timeout: no part of the run can be judged."""
    return (
        f"{settings.name} {TIMED_OUT} it did not finish within {settings.timeout_s:g} s and was killed "
        "(raise harness.timeout_s in ratchet.yaml if it needs longer)"
    )


def timed_out(error: str | None) -> bool:
    """Whether a trace's error is a harness timeout (timeout_error)."""
    return error is not None and error.partition(" ")[2].startswith(TIMED_OUT)
