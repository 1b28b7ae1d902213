"""From what a harness did to a Trace: the same record the minimal runner writes.

Three sources, each the one place its facts come from: the loopback session's exchanges (every
model call with its tokens, and every tool call the model asked for, in order), the MCP server's
record (what Ratchet's tools were called with, their effect, result and state changes) and the
harness's final answer. Walking the model's tool calls in order:

- a call of Ratchet's MCP tools (mcp__ratchet__<tool>; for a `command` agent also ratchet__<tool> or
  the bare name of an offered tool) takes the next unconsumed record of that
  tool: the trace names it by the bare tool name, exactly as the minimal runner does, so a golden
  recorded through one harness compares with a replay through another; a call the harness never
  ran (refused, denied) stays in the trace with an error saying so;
- a call the adapter reads as loading a skill (Claude Code's Skill, Codex's read of a SKILL.md)
  fires that skill (skills_fired, pinned by the installed skill's hashes; a harness's own bundled
  skill is named with empty hashes) and is not a tool call;
- any other call is the harness's built-in tool: it is a ToolCall with the adapter's effect class
  (a shell command is `write` unless its readers are allowlisted), so Level 0 treats a new one
  like any new side effect; bookkeeping tools (a plan, a todo list) are left out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, cast

from ratchet.core.chat import ToolCallRequest
from ratchet.goldens.trace import Effect, ModelCall, SkillRef, ToolCall, VolatileRead
from ratchet.harness.base import MCP_PREFIX, MCP_SERVER, Harness, ReplayInput
from ratchet.llm.sessions import Exchange
from ratchet.skills.skill import Skill

_EFFECT_TAG = re.compile(r"^\[(read|write|send|spend|destroy)\]")
RESULT_LIMIT = 4000


def model_calls(exchanges: Sequence[Exchange], *, tier: str, purpose: str, fallback_model: str) -> list[ModelCall]:
    return [
        ModelCall.of(
            usage=ex.response.usage,
            index=i,
            tier=tier,
            model=ex.response.model or fallback_model,
            purpose=purpose,
            request_digest=ex.response.request_digest,
            latency_ms=0.0,
            cache_hit=ex.response.cache_hit,
            finish_reason=ex.response.finish_reason,
        )
        for i, ex in enumerate(exchanges)
    ]


def _tool_results(exchanges: Sequence[Exchange]) -> dict[str, str]:
    results: dict[str, str] = {}
    for ex in exchanges:
        for message in ex.request.messages:
            if message.role == "tool" and message.tool_call_id and message.tool_call_id not in results:
                results[message.tool_call_id] = message.content or ""
    return results


def _declared_effects(exchanges: Sequence[Exchange]) -> dict[str, Effect]:
    """The effect each offered MCP tool declares in its description ("[write] ...")."""
    effects: dict[str, Effect] = {}
    for ex in exchanges:
        for tool in ex.request.tools:
            match = _EFFECT_TAG.match(tool.description or "")
            if tool.name.startswith(MCP_PREFIX) and match is not None:
                effects[tool.name[len(MCP_PREFIX) :]] = cast(Effect, match.group(1))
    return effects


def _skill_ref(name: str, skills: Mapping[str, Skill]) -> SkillRef:
    skill = skills.get(name)
    if skill is None:
        return SkillRef(name=name, content_hash="", substance_hash="")
    return SkillRef(name=skill.name, content_hash=skill.content_hash, substance_hash=skill.substance_hash)


class Mapped:
    """The trace fields read off one harness run."""

    def __init__(self) -> None:
        self.skills_fired: list[SkillRef] = []
        self.tool_calls: list[ToolCall] = []
        self.volatile_reads: list[VolatileRead] = []


def mcp_tool_name(name: str, offered: frozenset[str]) -> str | None:
    """The bare MCP tool a model-side tool name calls: mcp__ratchet__<tool> (Claude Code, Codex), or,
    for a `command` agent that names them otherwise, `ratchet__<tool>` or the bare offered name."""
    for prefix in (MCP_PREFIX, f"{MCP_SERVER}__"):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name if name in offered else None


def map_calls(
    harness: Harness,
    replay: ReplayInput,
    exchanges: Sequence[Exchange],
    records: Sequence[ToolCall],
    volatile: Sequence[VolatileRead],
    skills: Mapping[str, Skill],
    *,
    offered: frozenset[str] = frozenset(),
) -> Mapped:
    """Skills fired, tool calls (MCP and built-in, in the model's order) and volatile reads.
    `offered`: the names of the tools Ratchet's MCP server offers in this replay's world."""
    mapped = Mapped()
    results = _tool_results(exchanges)
    declared = _declared_effects(exchanges)
    pending = list(records)
    renumbered: dict[int, int] = {}
    for ex in exchanges:
        for call in ex.response.message.tool_calls:
            _map_one(harness, replay, call, mapped, pending, renumbered, results, declared, skills, offered)
    for record in pending:  # ran but never seen asked for (cannot happen with a sane harness): keep it
        renumbered[record.index] = len(mapped.tool_calls)
        mapped.tool_calls.append(record.model_copy(update={"index": len(mapped.tool_calls)}))
    mapped.volatile_reads = [
        read.model_copy(update={"tool_call_index": renumbered.get(read.tool_call_index, -1)}) for read in volatile
    ]
    return mapped


def _map_one(
    harness: Harness,
    replay: ReplayInput,
    call: ToolCallRequest,
    mapped: Mapped,
    pending: list[ToolCall],
    renumbered: dict[int, int],
    results: dict[str, str],
    declared: dict[str, Effect],
    skills: Mapping[str, Skill],
    offered: frozenset[str],
) -> None:
    index = len(mapped.tool_calls)
    bare = mcp_tool_name(call.name, offered)
    if bare is not None:
        record = next((r for r in pending if r.name == bare), None)
        if record is None:
            mapped.tool_calls.append(
                ToolCall(
                    index=index,
                    name=bare,
                    arguments=call.arguments,
                    effect=declared.get(bare, "write"),
                    error="the harness did not run this call",
                )
            )
            return
        pending.remove(record)
        renumbered[record.index] = index
        mapped.tool_calls.append(record.model_copy(update={"index": index}))
        return
    loaded = harness.loaded_skill(call, replay)
    if loaded is not None:
        if loaded and all(ref.name != loaded for ref in mapped.skills_fired):
            mapped.skills_fired.append(_skill_ref(loaded, skills))
        return
    effect = harness.builtin_effect(call, replay)
    if effect == "ignore":
        return
    result: Any = results.get(call.id)
    if isinstance(result, str) and len(result) > RESULT_LIMIT:
        result = result[:RESULT_LIMIT] + "..."
    mapped.tool_calls.append(
        ToolCall(index=index, name=call.name, arguments=call.arguments, effect=effect, result=result)
    )
