"""The MinimalRunner: route the task, then loop model -> mocked tools until a final answer.

Routing is `lexical` (the trigger matcher fires a skill and its body goes in the system prompt)
or `model` (the system prompt lists the catalog and the model calls load_skill, whose answer is
the skill's block; see ratchet/agent/catalog.py). A load_skill call fires the skill in the trace
(skills_fired) and is not a tool call on the world, so it is not in trace.tool_calls.

Tool call ids are rewritten to `call_{turn}_{i}` before they enter the transcript, so the
next request (and its cache key) does not depend on ids a live provider made up.
"""

from __future__ import annotations

from collections.abc import Mapping

from ratchet.agent.catalog import LOAD_SKILL, answer_load, catalog_system_prompt, load_skill_spec
from ratchet.agent.prompt import system_prompt
from ratchet.agent.trigger import match_skill
from ratchet.config.project import Routing
from ratchet.core.chat import ChatModel, ChatRequest, Message, ToolCallRequest
from ratchet.core.clock import Clock, elapsed_ms, wall_clock
from ratchet.core.errors import ModelCallError, ToolError
from ratchet.core.jsonio import canonical_dumps
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import ModelCall, SkillRef, Trace
from ratchet.skills.skill import Skill
from ratchet.world.state import World
from ratchet.world.tools import call_tool, tool_specs

DEFAULT_MAX_TOKENS = 4096


def tool_message(call_id: str, name: str, result: object, error: str | None) -> Message:
    payload = {"error": error} if error is not None else result
    return Message(role="tool", tool_call_id=call_id, name=name, content=canonical_dumps(payload, indent=None))


def skill_ref(skill: Skill) -> SkillRef:
    return SkillRef(name=skill.name, content_hash=skill.content_hash, substance_hash=skill.substance_hash)


def run_task(
    task: Task,
    skills: Mapping[str, Skill],
    world: World,
    model: ChatModel,
    *,
    seed: int,
    frozen_time: str,
    models: dict[str, str],
    upstream: str = "sim",
    max_turns: int = 16,
    tier: str = "agent",
    purpose: str = "replay",
    max_tokens: int = DEFAULT_MAX_TOKENS,
    clock: Clock = wall_clock,
    routing: Routing = "lexical",
) -> Trace:
    """Run one task once. Model failures end the trace with status "error"; they never raise."""
    fired = match_skill(task.prompt, skills) if routing == "lexical" else None
    skill = skills[fired] if fired is not None else None
    trace = Trace(
        task_id=task.id,
        prompt=task.prompt,
        expected_skill=task.skill,
        skills_fired=[skill_ref(skill)] if skill is not None else [],
        upstream="live" if upstream == "live" else "sim",
        simulated=upstream != "live",
        models=dict(models),
        seed=seed,
        frozen_time=frozen_time,
        world_digest=world.digest(),
    )
    if world.injector is not None:  # the faults this run draws from go on its trace, so a replay meets them
        world.injector.plan.stamp(trace)
    system = system_prompt(frozen_time, skill) if routing == "lexical" else catalog_system_prompt(frozen_time, skills)
    messages = [
        Message(role="system", content=system),
        Message(role="user", content=task.prompt),
    ]
    tools = tool_specs(world) if routing == "lexical" else [*tool_specs(world), load_skill_spec()]
    reads_before = len(world.volatile_reads)
    try:
        for turn in range(max_turns):
            request = ChatRequest(messages=messages, tools=tools, seed=seed, temperature=0, max_tokens=max_tokens)
            asked_at = clock()
            response = model.complete(request)
            trace.simulated = trace.simulated or response.simulated
            trace.model_calls.append(
                ModelCall.of(
                    usage=response.usage,
                    index=len(trace.model_calls),
                    tier=tier,
                    model=response.model or model.model_id,
                    purpose=purpose,
                    request_digest=response.request_digest,
                    # Wall-clock time of a simulated answer is noise; keep simulated traces byte-stable.
                    latency_ms=0.0 if response.simulated else elapsed_ms(clock, asked_at),
                    cache_hit=response.cache_hit,
                    finish_reason=response.finish_reason,
                )
            )
            requested = response.message.tool_calls
            if not requested:
                trace.final_output = response.message.content or ""
                break
            calls = [
                ToolCallRequest(id=f"call_{turn}_{i}", name=c.name, arguments=c.arguments)
                for i, c in enumerate(requested)
            ]
            messages.append(Message(role="assistant", content=response.message.content, tool_calls=calls))
            for call in calls:
                if routing == "model" and call.name == LOAD_SKILL:
                    messages.append(_load_skill(trace, call, skills, frozen_time))
                    continue
                record = call_tool(world, call.name, call.arguments, len(trace.tool_calls))
                trace.tool_calls.append(record)
                messages.append(tool_message(call.id, call.name, record.result, record.error))
        else:
            trace.status = "error"
            trace.error = f"the agent did not finish within {max_turns} turns"
    except ModelCallError as exc:
        trace.status = "error"
        trace.error = f"model call failed: {exc.one_line()}"
    except ToolError as exc:
        trace.status = "error"
        trace.error = exc.one_line()
    trace.volatile_reads = list(world.volatile_reads[reads_before:])
    return trace.with_totals()


def _load_skill(trace: Trace, call: ToolCallRequest, skills: Mapping[str, Skill], frozen_time: str) -> Message:
    """Answer a load_skill call; a skill loaded for the first time joins trace.skills_fired."""
    loaded, content = answer_load(skills, call.arguments, frozen_time)
    if loaded is not None and all(ref.name != loaded.name for ref in trace.skills_fired):
        trace.skills_fired.append(skill_ref(loaded))
    return Message(role="tool", tool_call_id=call.id, name=call.name, content=content)
