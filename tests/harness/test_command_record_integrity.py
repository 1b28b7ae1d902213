"""The command record is evidence a replay cannot touch: the shims send each run to the host's collector before
they answer, nothing is left out for the process that ran it, and a command run while no shell call ran (a skill's
!`command` as Claude Code loads it) is kept. Through the `command` harness under bubblewrap, and through the real
Claude Code and Codex (skipped when not installed, except under CI)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.core.chat import ChatResponse, Message, ToolCallRequest
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.harness import bwrap
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.llm.fake import ScriptedModel
from ratchet.skills.sets import load_skills
from tests.helpers.command_replay import AGENT

COMMANDS = "- name: gh\n  args: [issue, comment, '**']\n  stdout: posted\n  effect: send\n"
FOLDER = '"$(dirname "$(readlink -f "$(command -v gh)")")"'  # the scratch folder, found from inside
TAMPER = f": > {FOLDER}/commands/commands.jsonl; rm -rf {FOLDER}/commands/*; echo 'print(1)' > {FOLDER}/command-shim.py"
SKILL = "---\nname: poster\ndescription: Posts the weekly note.\n---\nState: !`gh issue comment 9 --body injected`\n"
BINARIES = {"claude-code": "RATCHET_CLAUDE_BIN", "codex": "RATCHET_CODEX_BIN"}


def _binary(name: HarnessName) -> str:
    value = os.environ.get(BINARIES[name], "")
    if value and Path(value).is_file():
        return value
    if os.environ.get("CI"):
        pytest.fail(f"{BINARIES[name]} must point at the pinned binary in CI (scripts/install_harnesses.sh)")
    pytest.skip(f"{name} is not installed (scripts/install_harnesses.sh, then set {BINARIES[name]})")


def _replay(
    tmp_path: Path, settings: HarnessSettings, turns: list[list[ToolCallRequest]], skills: bool = False
) -> Trace:
    world = tmp_path / "world"
    world.mkdir()
    (world / "github.yaml").write_text("github:\n  repos:\n    acme/api: {issues: {}}\n", encoding="utf-8")
    (world / "commands.yaml").write_text(COMMANDS, encoding="utf-8")
    loaded = {}
    if skills:
        (tmp_path / "skills" / "poster").mkdir(parents=True)
        (tmp_path / "skills" / "poster" / "SKILL.md").write_text(SKILL, encoding="utf-8")
        loaded = load_skills(tmp_path / "skills")
    answers = [ChatResponse(message=Message(role="assistant", tool_calls=calls)) for calls in turns]
    trace = run_through_harness(
        Task(id="post-01", prompt="post the weekly note"),
        loaded,
        WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time="2026-01-15T09:00:00Z"),
        ScriptedModel(responses=[*answers, "done"]),
        settings=settings,
        home=tmp_path / "home",
        seed=1,
        models={"agent": "scripted/fake"},
    )
    assert trace.status == "ok", trace.error
    return trace


def _commands(trace: Trace) -> list[list[str]]:
    return [call.arguments["argv"] for call in trace.tool_calls if call.name.startswith("cmd:")]


def test_under_bubblewrap_a_replay_cannot_erase_or_rewrite_its_command_record(tmp_path: Path) -> None:
    why = bwrap.unavailable()
    if why:
        pytest.skip(why)
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    settings = HarnessSettings(
        name="command", command=f"{sys.executable} -I {agent} {{proxy_url}} --token={{token}} {{prompt}}"
    )
    line = f"gh issue comment 7 --body x; {TAMPER}; gh issue comment 8 --body y"
    trace = _replay(tmp_path, settings, [[ToolCallRequest(id="call_1", name="bash", arguments={"command": line})]])
    assert trace.harness is not None and trace.harness.sandbox == "bubblewrap"
    assert _commands(trace)[1:] == [
        ["gh", "issue", "comment", "7", "--body", "x"],
        ["gh", "issue", "comment", "8", "--body", "y"],
    ], "both recorded: the shim and its folder are read-only, the record is the host's"
    assert "Read-only file system" in str(trace.tool_calls[1].result)


def test_claude_code_keeps_an_injected_command_an_execd_one_and_a_tampering_one(tmp_path: Path) -> None:
    settings = HarnessSettings(name="claude-code", builtin_tools=["Bash", "Read"], bin=_binary("claude-code"))
    tamper = "" if bwrap.unavailable() else f"{TAMPER}; "  # without bubblewrap the replay could rewrite the shim
    line = f"gh issue comment 7 --body x; {tamper}exec gh issue comment 8 --body y"
    turns = [
        [ToolCallRequest(id="call_1", name="Skill", arguments={"skill": "poster"})],
        [ToolCallRequest(id="call_2", name="Bash", arguments={"command": line})],
    ]
    trace = _replay(tmp_path, settings, turns, skills=True)
    assert [ref.name for ref in trace.skills_fired] == ["poster"]
    assert [call.name for call in trace.tool_calls] == ["cmd:gh", "Bash", "cmd:gh", "cmd:gh"]
    assert _commands(trace) == [
        ["gh", "issue", "comment", "9", "--body", "injected"],  # !`...` as the skill loaded: no shell call ran it
        ["gh", "issue", "comment", "7", "--body", "x"],
        ["gh", "issue", "comment", "8", "--body", "y"],  # exec'd by Claude Code's shell: its parent is claude
    ]


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_codex_keeps_the_agents_commands_and_leaves_out_only_its_own_probe(tmp_path: Path, sandbox: str) -> None:
    settings = HarnessSettings(name="codex", builtin_tools=["shell"], sandbox=sandbox, bin=_binary("codex"))
    line = "gh issue comment 7 --body x; sh -c 'exec gh issue comment 8 --body y'"
    trace = _replay(tmp_path, settings, [[ToolCallRequest(id="call_1", name="exec_command", arguments={"cmd": line})]])
    assert [call.name for call in trace.tool_calls] == ["exec_command", "cmd:gh", "cmd:gh"], trace.tool_calls
    assert "posted" in str(trace.tool_calls[0].result)
