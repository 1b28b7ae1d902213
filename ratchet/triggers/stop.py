"""Stop a trigger run through a real harness at the load: the model's turn after it is Ratchet's.

A trigger run asks one thing, which skill (if any) the harness loaded. Once the conversation a
harness sends shows it loaded a skill of the library (Claude Code's `Skill` call, Codex's read of a
SKILL.md: the harness adapter's own `loaded_skill`, the recognition the trace mapping uses), every
further model request of the run is answered here with a short final answer, so the harness ends
its turn instead of following the skill for several paid turns. The decision reads the request's
messages alone (deterministic, the same at base and head). The answer never reaches the upstream
model or its cache: it costs $0, and a replay that sends the same request still gets the model's
own answer. A load of a harness's bundled skill, or of a name the library lacks, does not stop the
run (it is no fire, and a load after it must still be seen).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from ratchet.config.harness import HarnessSettings
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, Message
from ratchet.harness.base import PLACEHOLDER_ROOT, Harness, ReplayInput
from ratchet.harness.sandbox import ReplayDirs
from ratchet.llm.cache import cache_key
from ratchet.skills.names import skill_key

__all__ = ["STOP_ANSWER", "STOP_MODEL", "StopsAtLoad"]

STOP_MODEL = "ratchet/trigger-stop"
"""The `model` of Ratchet's stop answer: a trace's model call with it was not the model's."""
STOP_ANSWER = "(trigger run: the skill was loaded; stopping)"


def _reader(settings: HarnessSettings) -> ReplayInput:
    """What `loaded_skill` is given: it reads only the settings (the read-only commands), and the
    request's paths are already the placeholder the model sees, so the folders are that placeholder."""
    root = Path(PLACEHOLDER_ROOT)
    dirs = ReplayDirs(
        root=root,
        workspace=root / "ws",
        home=root / "home",
        tmp=root / "tmp",
        record=root / "record.jsonl",
        volatile=root / "volatile.jsonl",
        output=root / "output.txt",
    )
    return ReplayInput(prompt="", dirs=dirs, endpoint_url="", token="", mcp_argv=[], frozen_time="", settings=settings)


class StopsAtLoad:
    """The agent model of one trigger run through `harness`, answering for it once a library skill is loaded."""

    def __init__(self, model: ChatModel, harness: Harness, settings: HarnessSettings, library: Iterable[str]) -> None:
        self.inner = model
        self.harness = harness
        self.replay = _reader(settings)
        self.library = frozenset(skill_key(name) for name in library)

    @property
    def model_id(self) -> str:
        # The inner model's: the session's trace and its fallback model name stay the model's.
        return self.inner.model_id

    def loaded(self, request: ChatRequest) -> str | None:
        """The first skill of the library the conversation so far shows the harness loading."""
        for message in request.messages:
            if message.role != "assistant":
                continue
            for call in message.tool_calls:
                name = self.harness.loaded_skill(call, self.replay)
                if name and skill_key(name) in self.library:
                    return name
        return None

    def complete(self, request: ChatRequest) -> ChatResponse:
        if self.loaded(request) is None:
            return self.inner.complete(request)
        # A plain text answer with no tool call ends the harness's turn (end_turn / a completed
        # Responses message). Its digest is keyed by STOP_MODEL, never the model's: nothing here
        # is written to the response cache.
        return ChatResponse(
            message=Message(role="assistant", content=STOP_ANSWER),
            model=STOP_MODEL,
            finish_reason="stop",
            request_digest=cache_key(STOP_MODEL, None, request),
        )
