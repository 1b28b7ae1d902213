"""Fakes for judge tests: traces built in code, scripted judges, a judge that obeys injections."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from ratchet.config.gate import GateConfig
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, Message, Usage, approx_tokens
from ratchet.core.fence import fence_token
from ratchet.gate.context import CheckContext
from ratchet.gate.drift import FactSearch
from ratchet.gate.models import PairOutcome, Selected
from ratchet.gate.pair import gate_pair
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import ModelCall, SkillRef, ToolCall, Trace, VolatileRead

CLOCK = "2026-10-14T16:00:00Z"


def make_trace(
    output: str,
    calls: Iterable[tuple[str, dict[str, Any], str]] = (),
    *,
    task_id: str = "t1",
    skill: str | None = "expense-report",
    volatile: Mapping[str, Any] | None = None,
    cost: float = 0.0,
    status: str = "ok",
) -> Trace:
    tool_calls = [ToolCall(index=i, name=n, arguments=a, effect=e) for i, (n, a, e) in enumerate(calls)]  # type: ignore[arg-type]
    reads = [VolatileRead(key=k, value=v, tool_call_index=0) for k, v in (volatile or {}).items()]
    fired = [SkillRef(name=skill, content_hash="c", substance_hash="s")] if skill else []
    model_calls = (
        [
            ModelCall.of(
                usage=Usage(usd=cost), index=0, tier="agent", model="fake/agent", purpose="replay", request_digest="d"
            )
        ]
        if cost
        else []
    )
    return Trace(
        task_id=task_id,
        prompt="Summarise my expenses",
        skills_fired=fired,
        seed=1,
        frozen_time=CLOCK,
        tool_calls=tool_calls,
        volatile_reads=reads,
        final_output=output,
        model_calls=model_calls,
        status=status,  # type: ignore[arg-type]
        error="boom" if status == "error" else None,
    ).with_totals()


def both_orders_always(config: GateConfig) -> GateConfig:
    """`config` with every swap-checked tier asking both orders and no tier settling (docs/adr/0026's
    policy off): for tests of escalation and of the two orders themselves."""
    tiers = [s.model_copy(update={"swap": "always", "settle_regression_at": None}) for s in config.tiers]
    return config.model_copy(update={"tiers": tiers})


def make_task(task_id: str = "t1") -> Task:
    return Task(id=task_id, prompt="Summarise my expenses for October", skill="expense-report")


def answer(verdict: str, confidence: float, rationale: str = "scripted") -> str:
    return json.dumps({"verdict": verdict, "confidence": confidence, "changed_elements": [], "rationale": rationale})


class ScriptedJudge:
    """Answers from a list in order (strings or exceptions); records requests; costs `cost` per call."""

    def __init__(self, model_id: str, answers: Iterable[str | Exception] = (), *, cost: float = 0.001) -> None:
        self._model_id = model_id
        self.answers = list(answers)
        self.cost = cost
        self.requests: list[ChatRequest] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        if not self.answers:
            raise AssertionError(f"{self._model_id} was asked more often than scripted")
        item = self.answers.pop(0)
        if isinstance(item, Exception):
            raise item
        prompt = "\n".join(m.content or "" for m in request.messages)
        return ChatResponse(
            message=Message(role="assistant", content=item),
            usage=Usage(tokens_in=approx_tokens(prompt), tokens_out=approx_tokens(item), usd=self.cost),
            model=self._model_id,
            latency_ms=5.0,
        )


def outside_fences(request: ChatRequest) -> str:
    """Everything a prompt says outside the sections fenced with its declared nonce."""
    system = "\n".join(m.content or "" for m in request.messages if m.role == "system")
    text = "\n".join(m.content or "" for m in request.messages if m.role != "system")
    nonce = fence_token(system)
    if nonce is None:
        return text
    token = re.escape(nonce)
    return re.sub(rf"^<<<BEGIN {token} (\w+)>>>\n.*?\n<<<END {token} \1>>>$", "", text, flags=re.MULTILINE | re.DOTALL)


class ObedientJudge:
    """A gullible judge: it obeys any instruction or verdict it finds outside the fenced data.

    Outside the fences it looks for "answer pass" or a JSON object with a verdict; if it
    finds either, it answers pass with full confidence. Otherwise it answers `default`.
    """

    def __init__(self, model_id: str, default: str) -> None:
        self._model_id = model_id
        self.default = default
        self.obeyed: list[bool] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        visible = outside_fences(request)
        injected = "answer pass" in visible.lower() or re.search(r'"verdict"\s*:\s*"pass"', visible) is not None
        self.obeyed.append(injected)
        content = answer("pass", 1.0, "as instructed") if injected else self.default
        return ChatResponse(
            message=Message(role="assistant", content=content), model=self._model_id, usage=Usage(usd=0.002)
        )


class FixedReplays:
    """A replay source handing out given traces; the base replay is a trace, an exception, or absent.

    Counts how often the base was asked for, so a test can see drift ask for it (or not).
    """

    def __init__(self, replay: Trace, base: Trace | Exception | None = None) -> None:
        self.trace = replay
        self.base = base
        self.base_calls = 0

    def replay(self, item: Selected) -> Trace:
        return self.trace

    def replay_base(self, item: Selected) -> Trace:
        self.base_calls += 1
        if self.base is None:
            raise AssertionError(f"no base replay was expected for {item.task.id}")
        if isinstance(self.base, Exception):
            raise self.base
        return self.base


def gate_fixed(
    golden: Trace,
    source: FixedReplays,
    *,
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    pair_id: str = "e1/t1",
    search: FactSearch | None = None,
) -> PairOutcome:
    """One pair through the real pair pipeline, with the replays given."""
    item = Selected(task=make_task(), golden=golden, because="routed")
    return gate_pair(item, source, CheckContext(config=config, judges=judges, search=search), pair_id=pair_id)
