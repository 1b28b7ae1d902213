"""One replay through the `command` harness whose model asks its shell to run one line: the scaffolding the
mocked-command tests share (tests/harness/test_commands_in_replay.py, test_command_fence.py).

The agent is stdlib only: it probes `git --version` before its first model request (as a harness probes git
before it starts), then runs each `bash` tool call the model asks for with `bash -lc` and sends back stdout and
stderr. The world is one GitHub repo (acme/api) and a commands.yaml mocking `gh issue comment 7 ...`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ratchet.config.harness import HarnessSettings, SandboxMode
from ratchet.core.chat import ChatResponse, Message, ToolCallRequest
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.llm.fake import ScriptedModel

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
TASK = Task(id="post-01", prompt="post the comment")
MODELS = {"agent": "scripted/fake"}


def command_world(tmp_path: Path) -> WorldSource:
    """`tmp_path`/world: the acme/api repo and COMMANDS, on the frozen clock the tests' goldens use."""
    world = tmp_path / "world"
    world.mkdir()
    (world / "github.yaml").write_text("github:\n  repos:\n    acme/api: {issues: {}}\n", encoding="utf-8")
    (world / "commands.yaml").write_text(COMMANDS, encoding="utf-8")
    return WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time="2026-01-15T09:00:00Z")


def command_settings(tmp_path: Path, *, sandbox: SandboxMode | None = None) -> HarnessSettings:
    """The `command` harness running AGENT (written to `tmp_path`/agent.py); `sandbox` None: the default."""
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    command = f"{sys.executable} -I {agent} {{proxy_url}} --token={{token}} {{prompt}}"
    if sandbox is None:
        return HarnessSettings(name="command", command=command)
    return HarnessSettings(name="command", command=command, sandbox=sandbox)


def shell_model(line: str) -> ScriptedModel:
    """A model that asks the agent's `bash` tool to run `line` once, then answers "done"."""
    asked = ToolCallRequest(id="call_1", name="bash", arguments={"command": line})
    return ScriptedModel(responses=[ChatResponse(message=Message(role="assistant", tool_calls=[asked])), "done"])


def replay_line(tmp_path: Path, line: str, *, sandbox: SandboxMode | None = None) -> Trace:
    """One replay of TASK whose model has `line` run; the trace, which must be `ok`."""
    trace = run_through_harness(
        TASK,
        {},
        command_world(tmp_path),
        shell_model(line),
        settings=command_settings(tmp_path, sandbox=sandbox),
        home=tmp_path / "home",
        seed=1,
        models=dict(MODELS),
    )
    assert trace.status == "ok", trace.error
    return trace
