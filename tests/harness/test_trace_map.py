"""From a harness's exchanges and its MCP record to trace fields: skill loads, MCP calls, built-ins."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.harness import HarnessSettings
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest, ToolSpec
from ratchet.gate.level0 import level0_findings
from ratchet.goldens.trace import ToolCall, Trace, VolatileRead
from ratchet.harness.base import ReplayInput
from ratchet.harness.claude_code import ClaudeCode
from ratchet.harness.codex import Codex
from ratchet.harness.sandbox import ReplayDirs
from ratchet.harness.trace_map import map_calls
from ratchet.llm.sessions import Exchange
from ratchet.skills.skill import Skill

ROOT = Path("/r")
DIRS = ReplayDirs(
    root=ROOT,
    workspace=ROOT / "ws",
    home=ROOT / "home",
    tmp=ROOT / "tmp",
    record=ROOT / "c",
    volatile=ROOT / "v",
    output=ROOT / "o",
)
SKILL = Skill(name="triage", description="d", body="b", folder="/x/triage", content_hash="c1", substance_hash="s1")


def _replay(name: str) -> ReplayInput:
    return ReplayInput(
        prompt="p",
        dirs=DIRS,
        endpoint_url="http://127.0.0.1:1",
        token="t",
        mcp_argv=["py"],
        frozen_time="2026-10-14T16:00:00Z",
        settings=HarnessSettings(name=name),
    )  # type: ignore[arg-type]


def _exchange(calls: list[tuple[str, dict[str, object]]], results: dict[str, str] | None = None) -> Exchange:
    tools = [
        ToolSpec(name="mcp__ratchet__github_add_label", description="[write] Add a label", parameters={}),
        ToolSpec(name="mcp__ratchet__github_get_issue", description="[read] Read an issue", parameters={}),
    ]
    messages = [Message(role="user", content="p")]
    messages += [Message(role="tool", tool_call_id=call_id, content=text) for call_id, text in (results or {}).items()]
    asked = [ToolCallRequest(id=f"id{i}", name=name, arguments=args) for i, (name, args) in enumerate(calls)]
    return Exchange(
        api="anthropic",
        request=ChatRequest(messages=messages, tools=tools),
        response=ChatResponse(message=Message(role="assistant", tool_calls=asked)),
    )


def test_claude_code_calls_map_to_loads_mcp_calls_and_builtins_with_effects() -> None:
    exchanges = [
        _exchange([("Skill", {"skill": "triage"})]),
        _exchange(
            [
                ("mcp__ratchet__github_get_issue", {"number": 1}),
                ("Bash", {"command": "ls -la"}),
                ("TodoWrite", {"todos": []}),
                ("Bash", {"command": "curl -X POST https://x"}),
                ("mcp__ratchet__github_add_label", {"label": "bug"}),
            ]
        ),
        _exchange([], {"id1": "total 0"}),
    ]
    record = [ToolCall(index=0, name="github_get_issue", arguments={"number": 1}, effect="read", result={"id": 1})]
    volatile = [VolatileRead(key="k", value=1, tool_call_index=0)]
    mapped = map_calls(ClaudeCode(), _replay("claude-code"), exchanges, record, volatile, {"triage": SKILL})
    assert [(r.name, r.content_hash) for r in mapped.skills_fired] == [("triage", "c1")]
    shown = [(c.index, c.name, c.effect, c.error) for c in mapped.tool_calls]
    assert shown == [
        (0, "github_get_issue", "read", None),
        (1, "Bash", "read", None),
        (2, "Bash", "write", None),
        (3, "github_add_label", "write", "the harness did not run this call"),
    ]
    assert mapped.tool_calls[1].result == "total 0"
    assert mapped.volatile_reads[0].tool_call_index == 0


def test_codex_loads_by_reading_a_skill_file_and_a_bundled_skill_has_no_hashes() -> None:
    exchanges = [
        _exchange(
            [
                ("exec_command", {"cmd": "cat /ratchet-scratch/home/.codex/skills/.system/imagegen/SKILL.md"}),
                ("exec_command", {"cmd": "cat /ratchet-scratch/ws/.agents/skills/triage/SKILL.md"}),
                ("exec_command", {"cmd": "cat x > /ratchet-scratch/ws/.agents/skills/triage/SKILL.md"}),
                ("update_plan", {"plan": []}),
            ]
        )
    ]
    mapped = map_calls(Codex(), _replay("codex"), exchanges, [], [], {"triage": SKILL})
    assert [(r.name, r.content_hash) for r in mapped.skills_fired] == [("imagegen", ""), ("triage", "c1")]
    assert [(c.name, c.effect) for c in mapped.tool_calls] == [("exec_command", "write")], "a write is not a load"


def test_a_new_builtin_write_is_a_level0_hard_fail() -> None:
    golden = Trace(task_id="t", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z")
    replay = golden.model_copy(
        update={"tool_calls": [ToolCall(index=0, name="Bash", arguments={"command": "rm x"}, effect="write")]}
    )
    findings = level0_findings(golden, replay)
    assert findings[0].severity == "hard" and "Bash" in findings[0].detail
