"""Fake agent models for trigger runs (ratchet.triggers.run, `routing: model`).

`FiresWithProbability(p, skill)`: on a run's first turn, loads `skill` with probability p, else
answers without a skill. The draw is a hash of (salt, the request's seed, the user prompt), so a
run is reproducible, runs with different seeds are independent draws, and two "revisions" that
must draw independently (an A/A comparison) take different salts. `p` may depend on the prompt
(`per_prompt`).

`tool_call(tool, **arguments)`: an assistant turn that calls one tool, for ScriptedModel scripts.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from ratchet.agent.catalog import LOAD_SKILL
from ratchet.core.chat import ChatRequest, ChatResponse, Message, ToolCallRequest, Usage


def tool_call(tool: str, /, **arguments: object) -> ChatResponse:
    """An assistant turn calling `tool` with `arguments` (the runner rewrites the call id)."""
    call = ToolCallRequest(id="call_x", name=tool, arguments=dict(arguments))
    return ChatResponse(
        message=Message(role="assistant", content=None, tool_calls=[call]), usage=Usage(tokens_in=10, tokens_out=5)
    )


def answer(text: str = "Done, no skill needed.") -> ChatResponse:
    return ChatResponse(message=Message(role="assistant", content=text), usage=Usage(tokens_in=10, tokens_out=5))


def uniform(*parts: object) -> float:
    """A number in [0, 1) from `parts`, the same on every machine."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class FiresWithProbability:
    """A ChatModel that loads `skill` with probability p on a trigger run's first turn."""

    def __init__(self, p: float, skill: str, *, salt: str = "", per_prompt: Mapping[str, float] | None = None) -> None:
        self.p = p
        self.skill = skill
        self.salt = salt
        self.per_prompt = dict(per_prompt or {})
        self.calls = 0

    @property
    def model_id(self) -> str:
        return "fake/fires-with-probability"

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        if any(m.role == "tool" for m in request.messages):
            return answer("Followed the skill.")
        prompt = next((m.content or "" for m in request.messages if m.role == "user"), "")
        p = self.per_prompt.get(prompt, self.p)
        if uniform(self.salt, request.seed, prompt) < p:
            return tool_call(LOAD_SKILL, name=self.skill)
        return answer()
