"""The simulated agent: a ChatModel that follows the skill in its system prompt like a program.

It sees only what a real model would: the request's messages and tools. Never labels, task ids,
edit ids or goldens. It is deterministic in (messages, tools, seed) and stateless per call: each
call re-reads the transcript and decides the next tool call or the final answer.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ratchet.agent.prompt import read_skill_block
from ratchet.core.chat import (
    ChatRequest,
    ChatResponse,
    Message,
    ToolCallRequest,
    Usage,
    approx_tokens,
)
from ratchet.core.chatjson import messages_json, tools_json
from ratchet.core.jsonio import canonical_dumps
from ratchet.sim.interp import Interpreter
from ratchet.sim.program import kept_program

SIM_AGENT_ID = "sim/agent-1"
_LEAD = "I followed the {skill} skill."
_HEADING = "Result:"
# Stock rewordings the noise knob picks from: same fields, same values, different framing.
_NOISY_LEADS = ("Done: the {skill} skill ran to completion.", "Here is what the {skill} skill produced.")
_NOISY_HEADINGS = ("Summary:", "Outcome:")
# The other half of the noise: a closing line a model adds now and then. Unlike a reworded
# framing, a careful reader counts it as a changed element (a line only in the replay), so it
# looks like a regression to a judge on one replay: the noise record and repeats must see it.
_ASIDES = (
    "I checked each value against the tool results before answering.",
    "Tell me if you want any part of this redone.",
    "Everything above comes straight from the tools' answers.",
)
_CANARY = "No skill applies to this request, so I am answering it directly, without tools."
NO_SKILL_NOTE = "(answered without a skill)"
# Every framing line the agent may write around the substance: the judges read these as
# rewordings, never as a changed element (ratchet.sim.judges).
FRAMING_LEADS = (_LEAD, *_NOISY_LEADS)
FRAMING_HEADINGS = (_HEADING, *_NOISY_HEADINGS)


class SimAgentModel:
    """Offline stand-in for the agent tier. `noise` is the chance a final answer varies (see _reword)."""

    def __init__(self, *, noise: float = 0.0, model_id: str = SIM_AGENT_ID) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError("noise must be between 0 and 1")
        self.noise = noise
        # A noisy simulator is another model: its answers must never share a cache entry with the quiet one's.
        self._model_id = model_id if noise == 0 else f"{model_id}+noise{noise:g}"

    @property
    def model_id(self) -> str:
        return self._model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        # A real harness's request (Claude Code, Codex): load through its tool, follow as below.
        from ratchet.sim.harness_agent import harness_turn

        harness = harness_turn(request)
        if harness is not None:
            if harness.load is not None:
                return self._respond(request, harness.load, "tool_calls")
            followed = self.complete(harness.request)
            return self._respond(request, harness.restore(followed.message), followed.finish_reason)
        # routing: model: load a skill from the catalog first, then read it as a system-prompt one.
        from ratchet.sim.catalog import catalog_turn

        loading, request = catalog_turn(request)
        if loading is not None:
            return self._respond(request, loading, "tool_calls")
        system = next((m.content or "" for m in request.messages if m.role == "system"), "")
        user = next((m.content or "" for m in request.messages if m.role == "user"), "")
        block = read_skill_block(system)
        if block is None:
            return self._answer(request, self._reword(request, f"{_CANARY}\n\nRequest: {' '.join(user.split())}", None))
        skill_name, body = block
        program = kept_program(body, frozenset(t.name for t in request.tools))
        interpreter = Interpreter(program, user, _tool_results(request.messages))
        call = interpreter.next_call()
        if call is not None:
            turn = sum(1 for m in request.messages if m.role == "assistant")
            message = Message(
                role="assistant",
                content=None,
                tool_calls=[ToolCallRequest(id=f"call_{turn}_0", name=call.tool, arguments=call.arguments)],
            )
            return self._respond(request, message, "tool_calls")
        lines = interpreter.render()
        return self._answer(request, self._reword(request, "\n".join(lines), skill_name))

    def _reword(self, request: ChatRequest, body: str, skill: str | None) -> str:
        """The answer around `body`; with chance `noise`, either reworded framing or an added closing line."""
        lead, heading, aside = _LEAD, _HEADING, ""
        rng = random.Random(f"sim-agent-noise:{request.seed}")
        if self.noise > 0 and rng.random() < self.noise:
            if rng.random() < 0.5:
                lead, heading = rng.choice(_NOISY_LEADS), rng.choice(_NOISY_HEADINGS)
            else:
                aside = f"\n\n{rng.choice(_ASIDES)}"
        if skill is None:
            return (body if lead == _LEAD else f"{body}\n\n{NO_SKILL_NOTE}") + aside
        return f"{lead.format(skill=skill)}\n\n{heading}\n{body}{aside}"

    def _answer(self, request: ChatRequest, text: str) -> ChatResponse:
        return self._respond(request, Message(role="assistant", content=text), "stop")

    def _respond(self, request: ChatRequest, message: Message, finish_reason: str) -> ChatResponse:
        # canonical_dumps({"messages": [...], "tools": [...]}, indent=None), each message serialised once a process.
        prompt = '{"messages":' + messages_json(request.messages) + ',"tools":' + tools_json(request.tools) + "}"
        output = message.content or canonical_dumps(
            [c.model_dump(mode="json") for c in message.tool_calls], indent=None
        )
        return ChatResponse(
            message=message,
            usage=Usage(tokens_in=approx_tokens(prompt), tokens_out=approx_tokens(output)),
            model=self._model_id,
            finish_reason=finish_reason,
            simulated=True,
        )


def _tool_results(messages: list[Message]) -> list[Any]:
    """Results of the tool calls already made, in the order they were asked for."""
    answers = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool"}
    results: list[Any] = []
    for message in messages:
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            text = answers.get(call.id, "")
            try:
                results.append(json.loads(text))
            except json.JSONDecodeError:
                results.append(text)
    return results
