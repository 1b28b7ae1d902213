"""One watch replay against its golden: the same, differed (the model's count), world drift, or failed.

`differed` is what a noise record counts (ratchet.gate.noise.differing_parts: anything Level 0 compares), so
the watch rate and the record's rate measure the same thing. World drift is told apart by where the replay
first leaves the golden: walking both runs step by step (routing, then each tool call and its result), if the
first step that differs is a tool's RESULT while the model had asked for exactly the golden's calls until
then, the mocked world answered otherwise and everything after may follow from it: the world moved, not the
model. Such a replay is left out of the model's count (and reported on its own), whether or not it went on
to differ.

A replay that ended otherwise than its golden without anything failing (the agent's turn limit, where the
golden finished) is the model's behaviour too: it `differed`, with TURN_LIMIT_PART first among its parts.
Only a failure (a model call, a tool or harness crash, a timeout) is an `error`, left out of the count.
A noise record counts a repeat that hit the turn limit among its `errors` (ratchet.gate.noise.measure_golden),
so the record's rate cannot include it: a model that stops finishing shows up here as a part the records
never saw.
"""

from __future__ import annotations

import re

from ratchet.core.jsonio import canonical_dumps
from ratchet.gate.noise import differing_parts
from ratchet.goldens.trace import ToolCall, Trace
from ratchet.skills.names import optional_skill_key
from ratchet.watch.models import ReplayOutcome

AGENT_TIER = "agent"
TURN_LIMIT_PART = "status: turn limit"
_TURN_LIMIT = re.compile(r"the agent did not finish within \d+ turns")
"""ratchet.agent.runner's error when the agent used every turn of max_agent_turns (pinned by a test that runs it)."""


def hit_turn_limit(trace: Trace) -> bool:
    """Whether `trace` ended at the agent's turn limit: the model kept asking for tools, nothing failed."""
    return trace.status == "error" and _TURN_LIMIT.fullmatch(trace.error or "") is not None


def answered_models(trace: Trace) -> list[str]:
    """The agent model ids that answered in `trace` (what the upstream said, not what was asked for)."""
    answered = {call.model for call in trace.model_calls if call.tier == AGENT_TIER and call.model}
    if not answered and trace.models.get(AGENT_TIER):
        answered.add(trace.models[AGENT_TIER])
    return sorted(answered)


def _same_call(golden: ToolCall, replay: ToolCall) -> bool:
    return golden.name == replay.name and canonical_dumps(golden.arguments, indent=None) == canonical_dumps(
        replay.arguments, indent=None
    )


def _same_answer(golden: ToolCall, replay: ToolCall) -> bool:
    return golden.error == replay.error and canonical_dumps(golden.result, indent=None) == canonical_dumps(
        replay.result, indent=None
    )


def world_moved(golden: Trace, replay: Trace) -> str | None:
    """The tool call whose result first moved, when that is where `replay` first leaves `golden`; else None."""
    if optional_skill_key(golden.fired_skill) != optional_skill_key(replay.fired_skill):
        return None
    for ours, theirs in zip(golden.tool_calls, replay.tool_calls, strict=False):
        if not _same_call(ours, theirs):
            return None
        if not _same_answer(ours, theirs):
            return f"call {ours.index + 1} ({ours.name}) answered otherwise than when the golden was recorded"
    return None


def classify(task_id: str, repeat: int, golden: Trace, replay: Trace) -> ReplayOutcome:
    """What one watch replay says about the model."""
    base = ReplayOutcome(
        task_id=task_id, repeat=repeat, kind="same", models=answered_models(replay), cost_usd=replay.cost_usd
    )
    turn_limit = hit_turn_limit(replay)
    if replay.status != "ok" and not turn_limit:
        return base.model_copy(update={"kind": "error", "detail": replay.error or "the replay ended in error"})
    ended = [TURN_LIMIT_PART] if turn_limit and golden.status == "ok" else []
    parts = ended + [part for part in differing_parts(golden, replay) if part not in ended]
    moved = world_moved(golden, replay)
    if moved is not None:
        return base.model_copy(update={"kind": "world", "detail": moved, "parts": parts})
    return base.model_copy(update={"kind": "differed" if parts else "same", "parts": parts})
