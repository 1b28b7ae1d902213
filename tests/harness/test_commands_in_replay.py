"""Mocked commands end to end through one replay: a `command` agent (stdlib only) whose model asks its shell to
run `gh` and `git push`; the shims answer from world/commands.yaml, and the trace has each as a `cmd:` call
after the shell call that ran it, with the mock's effect and state change."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ratchet.config.harness import HarnessSettings
from ratchet.core.chat import ChatResponse, Message, ToolCallRequest
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import StateChange, Trace
from ratchet.harness import bwrap
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.llm.fake import ScriptedModel
from ratchet.world.commands import NOT_MOCKED

AGENT = """
import json, subprocess, sys, urllib.request
proxy, token, prompt = sys.argv[1], sys.argv[2].partition("=")[2], sys.argv[3]
subprocess.run(["git", "--version"], capture_output=True)  # like a harness probing git before it starts
tools = [{"type": "function", "function": {"name": "bash", "description": "Run a command line",
          "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}}]
messages = [{"role": "user", "content": prompt}]
while True:
    body = json.dumps({"model": "agent", "messages": messages, "tools": tools}).encode()
    request = urllib.request.Request(proxy + "/v1/chat/completions", data=body,
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    message = json.loads(urllib.request.urlopen(request, timeout=60).read())["choices"][0]["message"]
    messages.append(message)
    if not message.get("tool_calls"):
        print(message["content"])
        break
    for call in message["tool_calls"]:
        line = json.loads(call["function"]["arguments"])["command"]
        done = subprocess.run(["bash", "-lc", line], capture_output=True, text=True)
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": done.stdout + done.stderr})
"""
COMMANDS = """\
- name: gh
  args: [issue, comment, "7", "**"]
  stdout: "https://github.com/acme/api/issues/7#issuecomment-1\\n"
  effect: send
  state: {github.repos.acme/api.issues.7.commented: true}
"""
LINE = "gh issue comment 7 --body 'looks good'; git push origin main; echo $PATH"


def _replay(tmp_path: Path, line: str) -> Trace:
    world = tmp_path / "world"
    world.mkdir()
    (world / "github.yaml").write_text("github:\n  repos:\n    acme/api: {issues: {}}\n", encoding="utf-8")
    (world / "commands.yaml").write_text(COMMANDS, encoding="utf-8")
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    settings = HarnessSettings(
        name="command", command=f"{sys.executable} -I {agent} {{proxy_url}} --token={{token}} {{prompt}}"
    )
    asked = ToolCallRequest(id="call_1", name="bash", arguments={"command": line})
    model = ScriptedModel(responses=[ChatResponse(message=Message(role="assistant", tool_calls=[asked])), "done"])
    trace = run_through_harness(
        Task(id="post-01", prompt="post the comment"),
        {},
        WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time="2026-01-15T09:00:00Z"),
        model,
        settings=settings,
        home=tmp_path / "home",
        seed=1,
        models={"agent": "scripted/fake"},
    )
    assert trace.status == "ok", trace.error
    return trace


def test_a_replay_runs_mocked_commands_and_records_each_after_its_shell_call(tmp_path: Path) -> None:
    trace = _replay(tmp_path, LINE)
    assert [(c.index, c.name, c.effect, c.error) for c in trace.tool_calls] == [
        (0, "cmd:git", "write", NOT_MOCKED.format(name="git")),
        (1, "bash", "write", None),
        (2, "cmd:gh", "send", None),
        (3, "cmd:git", "write", NOT_MOCKED.format(name="git")),
    ], "the agent's own `git --version` before any model call is kept, first: only a harness's exact probes are not"
    assert trace.tool_calls[0].arguments == {"argv": ["git", "--version"]}
    gh = trace.tool_calls[2]
    assert gh.arguments == {"argv": ["gh", "issue", "comment", "7", "--body", "looks good"]}
    assert gh.state_changes == [StateChange(path="github.repos.acme/api.issues.7.commented", before=None, after=True)]
    shell = str(trace.tool_calls[1].result)
    assert "issuecomment-1" in shell and NOT_MOCKED.format(name="git") in shell
    assert "\n/ratchet-scratch/bin\n" in shell, "bin/ is the only PATH (shown to the model as the placeholder)"
    assert json.loads(trace.model_dump_json())["tool_calls"][2]["name"] == "cmd:gh"


def test_under_bubblewrap_an_absolute_path_runs_the_shim_too(tmp_path: Path) -> None:
    why = bwrap.unavailable()
    if why:
        pytest.skip(why)
    real = Path("/usr/bin/git")
    if not real.is_file():
        pytest.skip("no /usr/bin/git on this host to cover")
    trace = _replay(tmp_path, f"{real} push origin main; true")
    assert trace.harness is not None and trace.harness.sandbox == "bubblewrap"
    assert [(c.name, c.arguments, c.error) for c in trace.tool_calls[2:]] == [
        ("cmd:git", {"argv": ["git", "push", "origin", "main"]}, NOT_MOCKED.format(name="git"))
    ]
