"""Driving a model the way Claude Code and Codex do, turn by turn, without the binaries.

The first request is a body captured from the real harness (tests/data/harness_requests/sim/)
with the task's prompt, the project's catalog and the world's tools put in, as the harness would
list them. Each next request is shaped as the harness shapes it: Claude Code adds an assistant
message and a user message per turn (tool_results first, then the loaded skill's body), or, when
every answer carried the same message id (`one_message_id`), merges all turns into one assistant
and one user message; Codex re-sends the whole input with the new function_call and
function_call_output items. Requests go through the proxy's real dialects (parse, render). MCP calls
are answered from a real World through call_tool, in the text Ratchet's MCP server answers.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ratchet.core.chat import ChatModel
from ratchet.goldens.trace import ToolCall
from ratchet.llm import anthropic_api, responses_api
from ratchet.llm.wire import Answer
from ratchet.mcp.server import call_result
from ratchet.skills.skill import Skill
from ratchet.world.state import World
from ratchet.world.tools import call_tool, tool_specs

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "harness_requests" / "sim"
SCRATCH = "/ratchet-scratch"
CLAUDE_SKILLS = f"{SCRATCH}/ws/.claude/skills"
CODEX_SKILLS = f"{SCRATCH}/ws/.agents/skills"
Shape = Literal["claude-code", "claude-code-one-message-id", "codex"]
SHAPES: tuple[Shape, ...] = ("claude-code", "claude-code-one-message-id", "codex")
_CLAUDE_CATALOG = "The following skills are available for use with the Skill tool:\n\n"
_CODEX_AVAILABLE = "### Available skills\n"


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    return data


@dataclass
class Drive:
    """What the model did behind the harness: the skills it loaded, the MCP calls, the final answer."""

    loads: list[str] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    final_output: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)


def _claude_listing(old: str, skills: Mapping[str, Skill], bundled: bool) -> str:
    """The listing with the project's skills first, then (when `bundled`) the fixture's bundled ones."""
    head, rest = old.split(_CLAUDE_CATALOG, 1)
    section, tail = rest.split("\n\n", 1)
    kept: list[str] = []
    keeping = False
    for line in section.split("\n"):
        if line.startswith("- "):  # an entry; the lines up to the next one continue its description
            keeping = bundled and line[2:].partition(": ")[0] not in {"github-triage", "fx-expense-converter"}
        if keeping:
            kept.append(line)
    ours = [f"- {s.name}: {s.description}" for s in sorted(skills.values(), key=lambda s: s.name)]
    return head + _CLAUDE_CATALOG + "\n".join(ours + kept) + "\n\n" + tail


def claude_first(prompt: str, skills: Mapping[str, Skill], world: World, *, bundled: bool = True) -> dict[str, Any]:
    body = fixture("claude_first")
    body["messages"][0]["content"] = prompt
    env = body["messages"][1]["content"][0]
    env["text"] = _claude_listing(env["text"], skills, bundled)
    skill_tool = next(t for t in body["tools"] if t["name"] == "Skill")
    body["tools"] = [skill_tool] + [
        {"name": f"mcp__ratchet__{s.name}", "description": s.description, "input_schema": s.parameters}
        for s in tool_specs(world)
    ]
    return body


def codex_first(prompt: str, skills: Mapping[str, Skill], world: World, *, bundled: bool = True) -> dict[str, Any]:
    body = fixture("codex_first")
    body["input"][3]["content"][0]["text"] = prompt
    part = body["input"][1]["content"][0]
    head, rest = part["text"].split(_CODEX_AVAILABLE, 1)
    lines, tail = rest.split("\n</skills_instructions>", 1)
    theirs = [line for line in lines.split("\n") if bundled and "(file: r0/" in line]
    ours = [
        f"- {s.name}: {s.description} (file: r1/{s.name}/SKILL.md)"
        for s in sorted(skills.values(), key=lambda s: s.name)
    ]
    part["text"] = head + _CODEX_AVAILABLE + "\n".join(theirs + ours) + "\n</skills_instructions>" + tail
    for tool in body["tools"]:
        if tool.get("name") == "mcp__ratchet":
            tool["tools"] = [
                {
                    "type": "function",
                    "name": s.name,
                    "description": s.description,
                    "strict": False,
                    "parameters": s.parameters,
                }
                for s in tool_specs(world)
            ]
    return body


def _mcp_answer(world: World, name: str, arguments: dict[str, Any], index: int) -> tuple[ToolCall, str, bool]:
    record = call_tool(world, name, arguments, index)
    result = call_result(record)
    text = result.content[0].text  # type: ignore[union-attr]
    return record, text, bool(result.is_error)


Turn = Callable[[dict[str, Any], list[dict[str, Any]]], None]
"""Answers one turn's calls (the model's tool_use blocks or function_call items) by adding them and their
results to the request body, as the harness would."""
ClaudeAnswer = Callable[[dict[str, Any]], tuple[str, bool]]
"""A Claude Code tool_use block other than Skill -> (the tool_result's content, is_error)."""
CodexAnswer = Callable[[dict[str, Any], dict[str, Any]], Any]
"""A Codex function_call item and its parsed arguments -> the function_call_output's output."""


def converse(
    codex: bool, model: ChatModel, body: dict[str, Any], turn: Turn, requests: list[dict[str, Any]], max_turns: int
) -> str:
    """Send `body` through the proxy's dialect (Responses for Codex, Messages for Claude Code), keeping a copy
    of each request in `requests`, and let `turn` answer the model's calls until it answers without one: its text."""
    dialect = responses_api if codex else anthropic_api
    for _ in range(max_turns):
        requests.append(copy.deepcopy(body))
        asked = dialect.parse(body)
        shown = dialect.render(Answer(response=model.complete(asked.request)), asked)
        if codex:
            calls = [i for i in shown["output"] if i["type"] == "function_call"]
            texts = [p["text"] for i in shown["output"] if i["type"] == "message" for p in i["content"]]
        else:
            calls = [b for b in shown["content"] if b["type"] == "tool_use"]
            texts = [b["text"] for b in shown["content"] if b["type"] == "text"]
        if not calls:
            return "".join(texts)
        turn(body, calls)
    raise AssertionError(f"no final answer within {max_turns} turns")


def drive(
    shape: Shape,
    model: ChatModel,
    prompt: str,
    skills: Mapping[str, Skill],
    world: World,
    *,
    bundled: bool = True,
    max_turns: int = 30,
) -> Drive:
    """Run one task behind the harness shape until the model answers without a tool call."""
    done = Drive()

    def mcp(name: str, arguments: dict[str, Any]) -> tuple[str, bool]:
        record, text, failed = _mcp_answer(world, name, arguments, len(done.tool_calls))
        done.tool_calls.append(record)
        return text, failed

    if shape == "codex":
        body = codex_first(prompt, skills, world, bundled=bundled)

        def codex_answer(call: dict[str, Any], arguments: dict[str, Any]) -> Any:
            if call["name"] == "exec_command":
                path = arguments["cmd"].removeprefix("cat ")
                name = path.removeprefix(f"{CODEX_SKILLS}/").split("/")[0]
                done.loads.append(name)
                return exec_output(0, Path(skills[name].folder, "SKILL.md").read_text(encoding="utf-8"))
            assert call.get("namespace") == "mcp__ratchet", call
            answer, failed = mcp(call["name"], arguments)
            if failed:
                return [
                    {"type": "input_text", "text": "Wall time: 0 seconds\nOutput:"},
                    {"type": "input_text", "text": answer},
                ]
            return f"Wall time: 0 seconds\nOutput:\n{answer}"

        done.final_output = converse(
            True, model, body, lambda b, calls: codex_turn(b, calls, codex_answer), done.requests, max_turns
        )
        return done
    body = claude_first(prompt, skills, world, bundled=bundled)
    merged = shape == "claude-code-one-message-id"

    def claude_answer(call: dict[str, Any]) -> tuple[str, bool]:
        return mcp(call["name"].removeprefix("mcp__ratchet__"), call["input"])

    def turn(b: dict[str, Any], calls: list[dict[str, Any]]) -> None:
        claude_turn(b, calls, done.loads, skills, claude_answer, merged=merged)

    done.final_output = converse(False, model, body, turn, done.requests, max_turns)
    return done


def claude_turn(
    body: dict[str, Any],
    calls: list[dict[str, Any]],
    loads: list[str],
    skills: Mapping[str, Skill],
    answer: ClaudeAnswer,
    *,
    merged: bool = False,
) -> None:
    """One Claude Code turn: a Skill call loads the skill (noted in `loads`; its body follows the results as
    text), every other call is `answer`ed. `merged`: every answer carried the same message id, so the turns
    are merged into one assistant and one user message."""
    results: list[dict[str, Any]] = []
    texts: list[dict[str, Any]] = []
    for call in calls:
        if call["name"] == "Skill":
            name = call["input"]["skill"]
            loads.append(name)
            results.append({"type": "tool_result", "tool_use_id": call["id"], "content": f"Launching skill: {name}"})
            texts.append(
                {
                    "type": "text",
                    "text": f"Base directory for this skill: {CLAUDE_SKILLS}/{name}\n\n{skills[name].body}",
                }
            )
            continue
        text, failed = answer(call)
        results.append(
            {
                "type": "tool_result",
                "tool_use_id": call["id"],
                "content": text,
                **({"is_error": True} if failed else {}),
            }
        )
    messages = body["messages"]
    if merged and messages[-1]["role"] == "user" and messages[-2]["role"] == "assistant":
        messages[-2]["content"] += calls
        old = messages[-1]["content"]
        messages[-1]["content"] = (
            [b for b in old if b["type"] == "tool_result"]
            + results
            + [b for b in old if b["type"] != "tool_result"]
            + texts
        )
    else:
        messages += [{"role": "assistant", "content": calls}, {"role": "user", "content": results + texts}]


def codex_turn(body: dict[str, Any], calls: list[dict[str, Any]], answer: CodexAnswer) -> None:
    """One Codex turn: the whole input re-sent with each function_call item and its `answer`ed output."""
    items: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    for call in calls:
        items.append({k: v for k, v in call.items() if k != "status"})
        output = answer(call, json.loads(call["arguments"]))
        outputs.append({"type": "function_call_output", "id": "fco_0", "call_id": call["call_id"], "output": output})
    body["input"] += items + outputs


def exec_output(code: int, text: str, end: str = "") -> str:
    """Codex's `exec_command` output for a command that exited with `code` and printed `text` (`end` after it,
    left out of the token count)."""
    return (
        f"Chunk ID: 0\nWall time: 0 seconds\nProcess exited with code {code}\n"
        f"Original token count: {len(text) // 4}\nOutput:\n{text}{end}"
    )
