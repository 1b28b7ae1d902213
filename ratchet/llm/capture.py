"""Capture files: one JSON line per exchange the proxy served, whatever API the harness spoke.

Every line holds the internal form (the ChatRequest the gateway was asked, the ChatResponse the
client was shown, tier, purpose, and the wire API it came in on), so a capture made through the
Anthropic or Responses endpoint builds a Trace exactly as one made through Chat Completions.
"""

from __future__ import annotations

import json
from pathlib import Path

from ratchet.core.chat import ChatRequest, ChatResponse, Usage
from ratchet.core.errors import InputError
from ratchet.core.jsonio import canonical_dumps
from ratchet.goldens.trace import ModelCall, ToolCall, Trace


def capture_line(*, api: str, tier: str, purpose: str, request: ChatRequest, response: ChatResponse) -> str:
    """One capture record, canonical JSON without a newline."""
    return canonical_dumps(
        {
            "api": api,
            "tier": tier,
            "purpose": purpose,
            "request": request.model_dump(mode="json"),
            "response": response.model_dump(mode="json"),
        },
        indent=None,
    )


def trace_from_capture(path: Path, *, task_id: str, frozen_time: str, seed: int = 0) -> Trace:
    """A Trace from a capture file: model calls in order; tool calls and results from the last
    request's history. The proxy cannot know a tool's effect, so every captured tool call is
    marked `write` (fail closed: a new one is flagged) until a reviewer says otherwise."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if not records:
        raise InputError("capture is empty", path=path)
    calls = [
        ModelCall.of(
            index=i,
            tier=r["tier"],
            model=r["response"]["model"],
            purpose=r["purpose"],
            request_digest=r["response"]["request_digest"],
            usage=Usage.model_validate(r["response"]["usage"]),
            latency_ms=r["response"]["latency_ms"],
            cache_hit=r["response"]["cache_hit"],
            finish_reason=r["response"]["finish_reason"],
        )
        for i, r in enumerate(records)
    ]
    last = ChatRequest.model_validate(records[-1]["request"])
    results = {m.tool_call_id: m.content for m in last.messages if m.role == "tool"}
    asked = [c for m in last.messages if m.role == "assistant" for c in m.tool_calls]
    tools = [
        ToolCall(index=i, name=c.name, arguments=c.arguments, effect="write", result=results.get(c.id))
        for i, c in enumerate(asked)
    ]
    simulated = any(r["response"]["simulated"] for r in records)
    prompt = next((m.content or "" for m in last.messages if m.role == "user"), "")
    final = ChatResponse.model_validate(records[-1]["response"]).message.content or ""
    return Trace(
        task_id=task_id,
        prompt=prompt,
        upstream="sim" if simulated else "live",
        simulated=simulated,
        seed=seed,
        frozen_time=frozen_time,
        model_calls=calls,
        tool_calls=tools,
        final_output=final,
        models={r["tier"]: r["response"]["model"] for r in records},
    ).with_totals()
