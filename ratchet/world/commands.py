"""Mocked commands: what `gh`, `git push` or `curl` answer inside a harness replay (`<world>/commands.yaml`).

A harness replay with its shell on runs the skill folder's scripts for real, but nothing it runs
may reach a real service. Every external command (KNOWN_EXTERNAL, and every name commands.yaml
mocks) is a shim in the replay's `<scratch>/bin/` (ratchet/world/command_shim.py), the only
folder on its PATH: it answers from the first mock whose name and argument patterns fit, or says
NOT_MOCKED and exits 127, and records the call either way. The driver reads the record back and
the trace gets each call as a `cmd:<name>` ToolCall with the mock's effect (`write` when none
matched), so Level 0 sees a new `git push` like any new side effect (docs/harnesses.md).

    # <world>/commands.yaml: a list, first match wins
    - name: gh
      args: [issue, comment, "*", "**"]     # fnmatch per word after the name; a last ** takes any rest
      stdout: "https://github.com/acme/api/issues/7#issuecomment-1\\n"
      effect: send                          # read | write | send | spend | destroy (required)
      state: {github.repos.acme/api.issues.7.commented: true}   # optional: world path -> value it sets
    - name: git
      args: [push, "**"]
      stderr: "remote: rejected\\n"
      exit: 1
      effect: write

The file is part of the world: not merged as a section, but in the world's digest when present,
and a bad one is one InputError naming the file and line when the world is first read (before
any replay). Models and matching only: nothing here runs a process.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from ratchet.core.errors import InputError
from ratchet.core.yamlio import compose_yaml, load_yaml_text, read_yaml_file
from ratchet.goldens.trace import Effect, StateChange, ToolCall
from ratchet.world.command_shim import NOT_MOCKED, REST, args_match, first_match

__all__ = [
    "CMD_PREFIX",
    "COMMANDS_FILE",
    "KNOWN_EXTERNAL",
    "NOT_MOCKED",
    "SKILL_READ",
    "CommandMock",
    "CommandRun",
    "args_match",
    "command_calls",
    "load_commands",
    "match_command",
]

COMMANDS_FILE = "commands.yaml"
CMD_PREFIX = "cmd:"
"""A recorded command's ToolCall name: `cmd:git`."""
SKILL_READ = "skill:read"
"""The ToolCall a harness's read of a file in an installed skill folder becomes: {"skill", "path"} (skill-relative)."""
RESULT_LIMIT = 4000

KNOWN_EXTERNAL: tuple[str, ...] = (
    "gh",
    "git",
    "curl",
    "wget",
    "kubectl",
    "helm",
    "ssh",
    "scp",
    "sftp",
    "rsync",
    "nc",
    "aws",
    "gcloud",
    "az",
    "docker",
    "podman",
    "terraform",
    "npm",
    "npx",
    "yarn",
    "pnpm",
    "pip",
    "pip3",
    "uv",
    "psql",
    "mysql",
    "sudo",
)
"""Commands that reach beyond the sandbox: each is a shim in a replay (answering NOT_MOCKED unless mocked),
whatever the host has installed, unless harness.commands_allow names it."""


RUNTIMES = re.compile(r"sh|bash|env|node|python[0-9.]*")
"""Names a mock may not take: what the harness (#!/usr/bin/env node), the shim and the skill's scripts run on."""


class CommandMock(BaseModel):
    """One entry of commands.yaml. Strict: `exit: true` or `1.0` is refused, never read as 1."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.+-]{0,63}$", description="The command, as typed (gh).")
    args: list[str] | None = Field(
        default=None,
        description=f"One fnmatch pattern per word after the name; a last {REST!r} takes any rest; absent: any.",
    )
    stdout: str = ""
    stderr: str = ""
    exit: int = Field(default=0, ge=0, le=255)
    effect: Effect
    state: dict[str, Any] = Field(default_factory=dict, description="Dotted world path -> the value it sets.")

    @field_validator("name")
    @classmethod
    def _not_a_runtime(cls, value: str) -> str:
        if RUNTIMES.fullmatch(value):
            raise PydanticCustomError(
                "runtime", "'{name}' is what the harness or its scripts run on and cannot be mocked", {"name": value}
            )
        return value

    @field_validator("args")
    @classmethod
    def _rest_last(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and REST in value[:-1]:
            raise ValueError(f"{REST!r} may only be the last pattern (it takes the rest of the words)")
        return value

    @field_validator("state")
    @classmethod
    def _paths(cls, value: dict[str, Any]) -> dict[str, Any]:
        for path in value:
            if not path or any(not part for part in path.split(".")):
                raise ValueError(f"state path {path!r} must be dotted keys (github.repos.acme/api.archived)")
        return value

    def shim_entry(self) -> dict[str, Any]:
        """What the shim reads (mocks.json): everything but effect and state, which only the trace needs."""
        return {"name": self.name, "args": self.args, "stdout": self.stdout, "stderr": self.stderr, "exit": self.exit}


class CommandRun(BaseModel):
    """One command a replay ran through a shim: a line of `<scratch>/commands/commands.jsonl`."""

    name: str
    argv: list[str] = Field(description="argv[0] is the bare name, the rest as given.")
    cwd: str = ""
    mock: int | None = Field(default=None, description="The index of the mock that answered; None: not mocked.")
    exit: int = 0
    parent: str = Field(default="", description="The name of the process that ran it (the harness's own: a probe).")


_MOCKS: TypeAdapter[list[CommandMock]] = TypeAdapter(list[CommandMock])


def load_commands(world_dir: Path) -> tuple[CommandMock, ...]:
    """world_dir/commands.yaml's mocks, in order; () when there is no such file. InputError (file, line) if bad."""
    path = world_dir / COMMANDS_FILE
    if not path.is_file():
        return ()
    text = read_yaml_file(path, error=InputError)
    raw = load_yaml_text(text, source=str(path), error=InputError)
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise InputError("commands.yaml must be a YAML list of mocked commands (- name: gh ...)", path=path, line=1)
    _refuse_repeated_keys(compose_yaml(text), (), path)
    try:
        return tuple(_MOCKS.validate_python(raw))
    except ValidationError as exc:
        problem = exc.errors()[0]
        loc = tuple(problem["loc"])
        where = ".".join(str(part) for part in loc) or "value"
        raise InputError(f"{where}: {problem['msg']}", path=path, line=_item_line(text, loc)) from None


def _refuse_repeated_keys(node: yaml.Node | None, where: tuple[Any, ...], path: Path) -> None:
    """InputError at the second of two equal keys in one mapping: YAML keeps the last, silently."""
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _refuse_repeated_keys(item, (*where, index), path)
    elif isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name is not None and name in seen:
                at = ".".join(str(part) for part in where) or "value"
                line = int(key.start_mark.line) + 1
                raise InputError(f"{at}: the key {name!r} is given twice", path=path, line=line)
            if name is not None:
                seen.add(name)
            _refuse_repeated_keys(value, (*where, name), path)


def _item_line(text: str, loc: tuple[Any, ...]) -> int:
    """The 1-based line of the list item (or its key) an error is about, else 1."""
    try:
        node = compose_yaml(text)
    except yaml.YAMLError:
        return 1
    if not isinstance(node, yaml.SequenceNode) or not loc or not isinstance(loc[0], int) or loc[0] >= len(node.value):
        return 1
    item = node.value[loc[0]]
    if len(loc) > 1 and isinstance(item, yaml.MappingNode):
        for key, _ in item.value:
            if isinstance(key, yaml.ScalarNode) and key.value == loc[1]:
                return int(key.start_mark.line) + 1
    return int(item.start_mark.line) + 1


def match_command(mocks: Sequence[CommandMock], name: str, args: Sequence[str]) -> int | None:
    """The index of the mock that answers `name args...` (the first that fits), or None: the shim's own rule."""
    return first_match([mock.shim_entry() for mock in mocks], name, args)


def command_calls(
    runs: Iterable[CommandRun], mocks: Sequence[CommandMock], data: Mapping[str, Any], *, start: int = 0
) -> list[ToolCall]:
    """Each run as the trace's `cmd:<name>` ToolCall, indexed from `start`: the mock's effect, stdout and state
    changes (before: the starting world `data`, or what an earlier run set), or `write` and NOT_MOCKED."""
    calls: list[ToolCall] = []
    set_so_far: dict[str, Any] = {}
    for offset, run in enumerate(runs):
        mock = mocks[run.mock] if run.mock is not None and 0 <= run.mock < len(mocks) else None
        arguments: dict[str, Any] = {"argv": list(run.argv)}
        if mock is None:
            calls.append(
                ToolCall(
                    index=start + offset,
                    name=CMD_PREFIX + run.name,
                    arguments=arguments,
                    effect="write",
                    error=NOT_MOCKED.format(name=run.name),
                )
            )
            continue
        changes = []
        for path, value in mock.state.items():
            before = set_so_far[path] if path in set_so_far else dotted_get(data, path)
            changes.append(StateChange(path=path, before=copy.deepcopy(before), after=copy.deepcopy(value)))
            set_so_far[path] = value
        stdout = mock.stdout if len(mock.stdout) <= RESULT_LIMIT else mock.stdout[:RESULT_LIMIT] + "..."
        calls.append(
            ToolCall(
                index=start + offset,
                name=CMD_PREFIX + run.name,
                arguments=arguments,
                effect=mock.effect,
                result=stdout,
                error=None if run.exit == 0 else " ".join(f"exit {run.exit} {mock.stderr.strip()[:300]}".split()),
                state_changes=changes,
            )
        )
    return calls


def dotted_get(data: Any, dotted: str) -> Any:
    """The value at a dotted world path (`a.b.0.c`: list items by index); None where the path leads nowhere."""
    for part in dotted.split("."):
        if isinstance(data, Mapping):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return None
    return data
