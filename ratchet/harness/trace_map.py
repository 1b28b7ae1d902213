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
- a read of a file inside an installed skill folder (Claude Code's Read, a `cat`, `head`, `tail`, `less` or
  `sed -n` through any shell tool: harness/shell_reads.py; never an `ls`, `echo` or `wc`, which show no
  content) is a `skill:read` call naming the skill and the skill-relative path, one per file: the
  same whatever harness read it, and what gate/unseen.py looks for before calling an edit of that
  file unsent;
- any other call is the harness's built-in tool: it is a ToolCall with the adapter's effect class
  (a shell command is `write` unless its readers are allowlisted), so Level 0 treats a new one
  like any new side effect; bookkeeping tools (a plan, a todo list) are left out.

A fourth source, the command shims' record (harness/commands.py), gives each external command a
replay ran as a `cmd:<name>` call, put after the shell call that ran it: the record's count when
each request arrived says which model turn's tools ran it (CommandTrail). One run while none of its
turn's shell calls ran (a skill's !`command` run as it loads) goes after the turn's last call; one
before the first request goes first. Only a harness's exact start-up probes are left out
(harness/commands.py harness_probes), never a run for the process that ran it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ratchet.core.chat import ToolCallRequest
from ratchet.goldens.trace import Effect, ModelCall, SkillRef, ToolCall, VolatileRead
from ratchet.harness.base import MCP_PREFIX, MCP_SERVER, PLACEHOLDER_ROOT, Harness, ReplayInput, shell_command
from ratchet.harness.shell_reads import content_operands, under
from ratchet.llm.sessions import Exchange
from ratchet.skills.skill import Skill
from ratchet.world.commands import SKILL_READ

_EFFECT_TAG = re.compile(r"^\[(read|write|send|spend|destroy)\]")
RESULT_LIMIT = 4000
READ_TOOLS = frozenset({"Read", "read", "read_file", "NotebookRead"})
"""Built-in tools that read one file (its path under file_path, path or notebook_path)."""
_PATH_KEYS = ("file_path", "path", "notebook_path")


@dataclass(frozen=True)
class CommandTrail:
    """The commands a replay ran through its shims, as `cmd:` ToolCalls in the order run (None: one the harness
    ran itself), and per exchange how many had run when its request arrived (None: unknown,
    taken as the exchange before's)."""

    calls: Sequence[ToolCall | None] = ()
    arrivals: Sequence[int | None] = ()

    def windows(self, count: int) -> list[tuple[int, int]]:
        """Per exchange, the runs [start, end) made while the tools of its answer ran; [0, first start) ran
        before the first request (the harness starting)."""
        starts: list[int] = []
        for i in range(count):
            known = self.arrivals[i] if i < len(self.arrivals) else None
            starts.append(max(starts[-1] if starts else 0, known if known is not None else 0))
        ends = [*starts[1:], len(self.calls)] if starts else []
        return [(start, max(start, end)) for start, end in zip(starts, ends, strict=True)]


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
    commands: CommandTrail | None = None,
) -> Mapped:
    """Skills fired, tool calls (MCP, built-in and commands, in the model's order) and volatile reads.
    `offered`: the names of the tools Ratchet's MCP server offers in this replay's world."""
    mapped = Mapped()
    results = _tool_results(exchanges)
    declared = _declared_effects(exchanges)
    pending = list(records)
    renumbered: dict[int, int] = {}
    trail = commands or CommandTrail()
    windows = trail.windows(len(exchanges))
    # before the first request: the harness starting (its exact probes are None already) or a hook it ran
    _append_commands(mapped, [run for run in trail.calls[: windows[0][0] if windows else None] if run is not None])
    for ex, (start, end) in zip(exchanges, windows, strict=True):
        calls = ex.response.message.tool_calls
        ran = _by_shell_call(calls, trail.calls[start:end])
        for call in calls:
            _map_one(harness, replay, call, mapped, pending, renumbered, results, declared, skills, offered)
            _append_commands(mapped, ran.pop(call.id, []))
        # ran while none of this turn's shell calls did (a skill's !`command` as it loads, a command an earlier
        # call left running): after the turn's last call
        _append_commands(mapped, ran.pop("", []))
    for record in pending:  # ran but never seen asked for (cannot happen with a sane harness): keep it
        renumbered[record.index] = len(mapped.tool_calls)
        mapped.tool_calls.append(record.model_copy(update={"index": len(mapped.tool_calls)}))
    mapped.volatile_reads = [
        read.model_copy(update={"tool_call_index": renumbered.get(read.tool_call_index, -1)}) for read in volatile
    ]
    return mapped


def _by_shell_call(calls: Sequence[ToolCallRequest], runs: Sequence[ToolCall | None]) -> dict[str, list[ToolCall]]:
    """The runs of one turn's window by the id of the shell call that ran them: the one whose command line
    names the command, else the turn's last shell call; "" when the turn asked for no shell call."""
    shells = [(call.id, shell_command(call) or "") for call in calls if shell_command(call) is not None]
    placed: dict[str, list[ToolCall]] = {}
    for run in runs:
        if run is None:
            continue
        name = run.name.removeprefix("cmd:")
        naming = [cid for cid, line in shells if re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])", line)]
        where = naming[0] if naming else (shells[-1][0] if shells else "")
        placed.setdefault(where, []).append(run)
    return placed


def _append_commands(mapped: Mapped, runs: Sequence[ToolCall]) -> None:
    for run in runs:
        mapped.tool_calls.append(run.model_copy(update={"index": len(mapped.tool_calls)}))


def skill_files(
    harness: Harness, replay: ReplayInput, call: ToolCallRequest, skills: Mapping[str, Skill]
) -> list[tuple[str, str]]:
    """(skill, skill-relative path) of each installed skill file the call shows the model: a read tool's path, or
    the files of a shell line that does nothing but show content (shell_reads.content_operands: cat, head, tail,
    less, sed -n), each named by its whole path. [] for any other call, and for a line that also names a file
    that is not an installed skill's: it stays the call it was."""
    line = shell_command(call)
    if call.name in READ_TOOLS:
        words: list[str] | None = [value for key in _PATH_KEYS if isinstance(value := call.arguments.get(key), str)]
    else:
        words = content_operands(line) if line is not None else None
    if not words:
        return []
    workspace = replay.dirs.workspace
    folder = harness.skills_dir(replay).relative_to(workspace).as_posix()
    seen = PLACEHOLDER_ROOT + "/" + workspace.relative_to(replay.dirs.root).as_posix()
    prefixes = (str(workspace), str(workspace.resolve()), seen)
    found: list[tuple[str, str]] = []
    for word in words:
        inside = under(word, folder, prefixes)
        name, _, path = (inside or "").partition("/")
        if inside is None or name not in skills or not path:
            return []
        if (name, path) not in found:
            found.append((name, path))
    return found


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
    read = skill_files(harness, replay, call, skills)
    for name, path in read:
        mapped.tool_calls.append(
            ToolCall(
                index=len(mapped.tool_calls), name=SKILL_READ, arguments={"skill": name, "path": path}, effect="read"
            )
        )
    if read:
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
