"""Driving a model as Claude Code (with `Bash` and `Read` on) and Codex do, with a shell, without the binaries.

Like tests/helpers/harness_drive.py (whose captured first requests it starts from), plus the harness's
own tools: each `Bash` / `exec_command` call is run by a fake shell and each `Read` (or `cat`) is
answered from the skill folders, in the text forms the real binaries send back (captured from Claude
Code 2.1.332 and Codex 0.169.0 on 2026-12-02):

- Claude Code `Bash`: the output (stdout then stderr, trailing line break cut); a non-zero exit is a
  `tool_result` with `is_error` and "Exit code N\\n<output>".
- Claude Code `Read`: each line as "<n>\\t<line>" (the file's last line break gives an empty last
  entry); a missing file is `is_error` "File does not exist. ...".
- Codex `exec_command`: "Chunk ID: 0\\nWall time: 0 seconds\\nProcess exited with code N\\n
  Original token count: T\\nOutput:\\n<output>" whatever the exit code.

The fake shell runs a skill's `python <skill folder>/scripts/...` for real (the interpreter running the
tests), answers `gh` / `git` per `mocks` (argv prefix -> (exit, output)), and anything else with Lane C's
not-mocked line and exit 127.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ratchet.config.harness import SHELL_TOOLS
from ratchet.core.chat import ChatModel
from ratchet.skills.skill import Skill
from ratchet.world.state import World
from tests.helpers.harness_drive import (
    CLAUDE_SKILLS,
    CODEX_SKILLS,
    SCRATCH,
    _mcp_answer,
    claude_first,
    claude_turn,
    codex_first,
    codex_turn,
    converse,
    exec_output,
)

BASH_SPEC = {
    "name": "Bash",
    "description": "Executes a given bash command and returns its output.",
    "input_schema": {
        "type": "object",
        "properties": {"command": {"type": "string"}, "description": {"type": "string"}},
        "required": ["command"],
    },
}
READ_SPEC = {
    "name": "Read",
    "description": "Reads a file from the local filesystem.",
    "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}, "required": ["file_path"]},
}


@dataclass
class ShellDrive:
    """What the model did: skills loaded, the harness calls it made (name, arguments) in order, the answer."""

    loads: list[str] = field(default_factory=list)
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    final_output: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class FakeShell:
    """Runs a command line the way the replay's shell would, over the skill folders installed at `root`."""

    skills: Mapping[str, Skill]
    root: str
    mocks: Mapping[tuple[str, ...], tuple[int, str]] = field(default_factory=dict)

    def local(self, path: str) -> Path | None:
        """A path under the installed skills as the real skill folder's file."""
        name, _, rest = path.removeprefix(f"{self.root}/").partition("/")
        skill = self.skills.get(name)
        return None if skill is None or not path.startswith(f"{self.root}/") else Path(skill.folder, rest)

    def run(self, line: str) -> tuple[int, str]:
        argv = shlex.split(line)
        for prefix, answer in self.mocks.items():
            if tuple(argv[: len(prefix)]) == prefix:
                return answer
        if argv[0] in ("python", "python3") and len(argv) > 1 and (script := self.local(argv[1])) is not None:
            done = subprocess.run(
                [sys.executable, str(script), *argv[2:]], capture_output=True, text=True, check=False, timeout=30
            )
            return done.returncode, (done.stdout + done.stderr).rstrip("\n")
        if argv[0] == "cat" and len(argv) == 2 and (file := self.local(argv[1])) is not None and file.is_file():
            return 0, file.read_text(encoding="utf-8")
        return 127, f"ratchet: {argv[0]} is not mocked (commands.yaml)"


CODEX_READ_ONLY = "`sandbox_mode` is `read-only`: The sandbox only permits reading files."
CODEX_WORKSPACE_WRITE = (
    "`sandbox_mode` is `workspace-write`: The sandbox permits reading files, and editing files in `cwd` and "
    "`writable_roots`. Editing files in other directories requires approval."
)
"""Codex 0.169.0's permissions instructions for `-s read-only` (as captured) and `-s workspace-write` (its text)."""


def _codex_sandbox(body: dict[str, Any], sentence: str) -> None:
    for item in body["input"]:
        for part in item.get("content") or []:
            if CODEX_READ_ONLY in part.get("text", ""):
                part["text"] = part["text"].replace(CODEX_READ_ONLY, sentence)
                return
    raise AssertionError("the captured Codex request names no sandbox mode")


def drive_with_shell(
    codex: bool,
    model: ChatModel,
    prompt: str,
    skills: Mapping[str, Skill],
    world: World,
    *,
    tools: tuple[str, ...] = ("Bash", "Read"),
    mocks: Mapping[tuple[str, ...], tuple[int, str]] | None = None,
    max_turns: int = 30,
) -> ShellDrive:
    """Run one task behind Claude Code (offering `tools` of Bash and Read) or Codex (workspace-write with a shell
    tool of harness.builtin_tools in `tools`, else read-only as captured) until the model answers."""
    shell = FakeShell(skills, CODEX_SKILLS if codex else CLAUDE_SKILLS, dict(mocks or {}))
    done = ShellDrive()
    if codex:
        body = codex_first(prompt, skills, world)
        if SHELL_TOOLS & set(tools):  # `shell` on: Codex runs -s workspace-write and tells the model so
            _codex_sandbox(body, CODEX_WORKSPACE_WRITE)

        def codex_answer(call: dict[str, Any], arguments: dict[str, Any]) -> Any:
            return _codex_answer(call["name"], arguments, done, shell, world)

        def turn(b: dict[str, Any], calls: list[dict[str, Any]]) -> None:
            codex_turn(b, calls, codex_answer)

    else:
        body = claude_first(prompt, skills, world)
        body["tools"] = [spec for spec in (BASH_SPEC, READ_SPEC) if spec["name"] in tools] + body["tools"]

        def claude_answer(call: dict[str, Any]) -> tuple[str, bool]:
            return _claude_answer(call["name"], call["input"], done, shell, world)

        def turn(b: dict[str, Any], calls: list[dict[str, Any]]) -> None:
            claude_turn(b, calls, done.loads, skills, claude_answer)

    done.final_output = converse(codex, model, body, turn, done.requests, max_turns)
    return done


def _claude_answer(
    name: str, arguments: dict[str, Any], done: ShellDrive, shell: FakeShell, world: World
) -> tuple[str, bool]:
    """A Bash, Read or MCP call's tool_result content and whether it is an error, as Claude Code sends it."""
    done.calls.append((name, arguments))
    if name == "Bash":
        code, output = shell.run(arguments["command"])
        return (output, False) if code == 0 else (f"Exit code {code}\n{output}", True)
    if name == "Read":
        file = shell.local(arguments["file_path"])
        if file is None or not file.is_file():
            return f"File does not exist. Note: your current working directory is {SCRATCH}/ws.", True
        lines = file.read_text(encoding="utf-8").split("\n")
        return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines, 1)), False
    _, text, failed = _mcp_answer(world, name.removeprefix("mcp__ratchet__"), arguments, len(done.calls))
    return text, failed


def _codex_answer(name: str, arguments: dict[str, Any], done: ShellDrive, shell: FakeShell, world: World) -> str:
    """An exec_command's or MCP call's output, as Codex sends it; a `cat` of a SKILL.md is the skill loading."""
    if name == "exec_command":
        line = arguments["cmd"]
        if line.startswith("cat ") and line.endswith("/SKILL.md"):
            done.loads.append(line.removeprefix(f"cat {shell.root}/").split("/")[0])
        else:
            done.calls.append(("exec_command", arguments))
        code, text = shell.run(line)
        return exec_output(code, text, end="\n")
    done.calls.append((name, arguments))
    _, answer, _ = _mcp_answer(world, name, arguments, len(done.calls))
    return f"Wall time: 0 seconds\nOutput:\n{answer}"
