"""The one Harness interface, and what every adapter shares.

An adapter is a small module that knows four things about one agent CLI: where it reads skills,
how to start it (argv, environment, config files) against Ratchet's loopback endpoint and MCP
server, how to read its final answer, and how to read its tool calls (which call loaded a skill,
what effect a built-in call has). Running it, recording it and building the Trace are the same for
every adapter (ratchet/harness/driver.py, trace_map.py). ADR 0016 says why the harness is driven
from outside and traced at the model endpoint rather than patched.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.core.chat import ToolCallRequest
from ratchet.goldens.trace import Effect
from ratchet.harness.sandbox import ProcessOutcome, ReplayDirs
from ratchet.harness.shell_reads import SHELL_TOOLS as SHELL_TOOLS
from ratchet.harness.shell_reads import shell_command as shell_command
from ratchet.llm.sessions import Rewrite

PLACEHOLDER_ROOT = "/ratchet-scratch"
"""What the model (and the cache key) sees instead of a replay's scratch folder."""
MCP_SERVER = "ratchet"
MCP_PREFIX = f"mcp__{MCP_SERVER}__"

BuiltinEffect = Effect | Literal["ignore"]
"""A built-in call's effect, or `ignore` for the harness's own bookkeeping (a plan, a todo list)."""


class ReplayInput(BaseModel):
    """What an adapter is given to start one replay."""

    model_config = ConfigDict(frozen=True)

    prompt: str
    dirs: ReplayDirs
    endpoint_url: str = Field(description="http://127.0.0.1:PORT, no path")
    token: str = Field(description="This replay's token for the loopback endpoint: not a provider key.")
    mcp_argv: list[str] = Field(description="The command that starts Ratchet's MCP server for this replay.")
    frozen_time: str = Field(description="The frozen clock, ISO-8601 UTC (the golden's frozen_time).")
    settings: HarnessSettings

    @property
    def frozen_date(self) -> str:
        """YYYY-MM-DD of the frozen clock: what a harness's date line is rewritten to."""
        return self.frozen_time[:10]


class Launch(BaseModel):
    """How to start the harness: argv, the environment additions, config files, stdin."""

    argv: list[str]
    env: dict[str, str] = Field(default_factory=dict)
    files: dict[Path, str] = Field(default_factory=dict, description="Written before the start.")
    stdin: str | None = None


class Finished(BaseModel):
    """What the harness answered, or why the replay is an error."""

    final_output: str = ""
    error: str | None = None


class Harness(Protocol):
    """One agent CLI, seen from Ratchet."""

    name: HarnessName
    binary: str
    """The executable's name (claude, codex) for messages and lookup; "" for `command`."""

    def skills_dir(self, replay: ReplayInput) -> Path: ...

    def launch(self, replay: ReplayInput, binary: Path | None) -> Launch: ...

    def rewrites(self, replay: ReplayInput) -> list[Rewrite]: ...

    def restores(self, replay: ReplayInput) -> dict[str, str]: ...

    def finished(self, replay: ReplayInput, outcome: ProcessOutcome) -> Finished: ...

    def loaded_skill(self, call: ToolCallRequest, replay: ReplayInput) -> str | None: ...

    def builtin_effect(self, call: ToolCallRequest, replay: ReplayInput) -> BuiltinEffect: ...


def root_rewrites(replay: ReplayInput) -> list[Rewrite]:
    """The scratch folder (as given and as resolved) -> PLACEHOLDER_ROOT, longest first."""
    roots = {str(replay.dirs.root), str(replay.dirs.root.resolve())}
    rewrites = [
        Rewrite(pattern=re.escape(root), replacement=PLACEHOLDER_ROOT) for root in sorted(roots, key=len, reverse=True)
    ]
    # A path turned into a folder name (Claude Code's per-project folder: every non-alphanumeric -> "-").
    slugs = {_slug(root) for root in roots}
    return [
        *rewrites,
        *(
            Rewrite(pattern=re.escape(slug), replacement=_slug(PLACEHOLDER_ROOT))
            for slug in sorted(slugs, key=len, reverse=True)
        ),
    ]


def _slug(path: str) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def restores(replay: ReplayInput) -> dict[str, str]:
    return {PLACEHOLDER_ROOT: str(replay.dirs.root), _slug(PLACEHOLDER_ROOT): _slug(str(replay.dirs.root))}


_SEGMENT_SPLIT = re.compile(r"\|\||&&|[|;\n]")
_WRITES = re.compile(r">|\$\(|`|\btee\b|-delete\b|-exec\b|\bsed\s+-i")


def shell_effect(command: str, read_commands: list[str]) -> Effect:
    """`read` when every segment of the command line starts with an allowlisted reader and nothing
    redirects, substitutes or deletes; otherwise `write` (unknown means it may change something)."""
    if _WRITES.search(command):
        return "write"
    allowed = set(read_commands)
    for segment in _SEGMENT_SPLIT.split(command):
        if not segment.strip():
            continue
        try:
            words = shlex.split(segment)
        except ValueError:
            return "write"
        if not words or Path(words[0]).name not in allowed:
            return "write"
    return "read"


_SKILL_FILE = re.compile(r"([^/\s'\"]+)/SKILL\.md\b")


def skill_of_path(text: str) -> str | None:
    """The skill folder a command or argument names a SKILL.md of (`.../<name>/SKILL.md`), if any."""
    match = _SKILL_FILE.search(text)
    return match.group(1) if match is not None else None
