"""A judge's opinion: the JSON a tier answers, parsed tolerantly, and what it means in code.

The judge's free text never decides anything: only the `verdict` enum and the numeric
`confidence` are read, and the pair outcome is computed from them here.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from ratchet.config.gate import JudgeVerdict
from ratchet.gate.models import JUDGE_VERDICTS

OPINION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": list(JUDGE_VERDICTS)},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        "changed_elements": {"type": "array", "items": {"type": "string"}},
        "rationale": {"type": "string"},
    },
    "required": ["verdict", "confidence", "changed_elements", "rationale"],
    "additionalProperties": False,
}


class ParsedAnswer(BaseModel):
    """The fields a judge must answer; everything else in its JSON is ignored."""

    verdict: JudgeVerdict
    confidence: float = Field(ge=0.0, le=1.0)
    changed_elements: list[str] = Field(default_factory=list)
    rationale: str = ""


def _json_objects(text: str) -> list[Any]:
    """Every JSON object that starts somewhere in `text`, in order (fences and prose around them ignored)."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except json.JSONDecodeError:
            index = text.find("{", index + 1)
            continue
        found.append(value)
        index = text.find("{", end)
    return found


def parse_answer(text: str | None) -> ParsedAnswer:
    """The first JSON object in the text that is a valid answer. ValueError when there is none."""
    if not text or not text.strip():
        raise ValueError("empty answer")
    objects = _json_objects(text)
    if not objects:
        raise ValueError("no JSON object in the answer")
    problems: list[str] = []
    for obj in objects:
        if not isinstance(obj, dict):
            continue
        if isinstance(obj.get("verdict"), str):
            obj = {**obj, "verdict": obj["verdict"].strip().lower()}
        try:
            answer = ParsedAnswer.model_validate(obj)
        except ValidationError as exc:
            first = exc.errors()[0]
            problems.append(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
            continue
        answer.rationale = answer.rationale[:1000]
        answer.changed_elements = [str(e)[:200] for e in answer.changed_elements[:20]]
        return answer
    raise ValueError("no valid answer object" + (f" ({problems[0]})" if problems else ""))
