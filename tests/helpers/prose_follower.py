"""A scripted agent model that follows a free-form skill's prose, served on loopback (a FakeOpenAI).

The simulator acts only on the skill convention's backticked program; a live model reads prose. This fake
stands in for the live model, deterministically, with a reading rule simple enough to state:

- the skill is the `<skill name=...>` block the minimal runner puts in the system prompt
  (ratchet.agent.prompt); no block (a canary): a one-line answer, no tool call;
- each sentence of the body that names a tool the request offers (its bare name, backticked or not) is a
  call of that tool, in text order; its arguments are read from the same sentence: `path` the first path
  (oncall/pager.csv), `to` the first e-mail address, `directory` the first folder; any other required
  string a fixed text (FILLER). Sentences under the output heading are not steps;
- with every call answered (one `tool` message back per call made), the final answer: each heading under
  the output heading, with each field its list items name ("- Pages: how many ..." -> "- Pages: noted").

So it notices what a model following the prose would: a deleted step that named a tool, a changed path, a
new side-effecting sentence, a dropped output heading or field; and it ignores what it does not read
(rules, conditions, numbers), which a real model might not. Same request, same answer: replays are stable.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ratchet.agent.prompt import read_skill_block
from tests.helpers.fake_openai import Behaviour, FakeOpenAI

FILLER = "On-call handover"
CANARY_ANSWER = "I have no skill for that."
_OUTPUT = re.compile(r"^#{1,6}\s+(?:output|response|reply|answer)\b", re.I)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*$")
_FIELD = re.compile(r"^\s*[-*]\s+(?:\*\*)?([A-Z][\w ]{0,30}?)(?:\*\*)?:")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_PATH = re.compile(r"(?<![\w/@.])((?:[\w.-]+/)+[\w.-]*\w|[\w-]+\.(?:csv|md|json|ya?ml|txt|log))\b")
_FOLDER = re.compile(r"(?<![\w/@.])((?:[\w.-]+/)+)")
_EMAIL = re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")


def _sections(body: str) -> tuple[list[str], list[str]]:
    """The body's lines before the output heading (the steps), and from it on (the output)."""
    lines = body.split("\n")
    start = next((i for i, line in enumerate(lines) if _OUTPUT.match(line)), len(lines))
    return lines[:start], lines[start:]


def _arguments(sentence: str, schema: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    required = set(schema.get("required") or ())
    for name in schema.get("properties") or {}:
        pattern = {"path": _PATH, "to": _EMAIL, "directory": _FOLDER}.get(name)
        match = pattern.search(sentence) if pattern is not None else None
        if match is not None:
            found[name] = match.group(1).rstrip("/")
        elif name in required and pattern is None:
            found[name] = FILLER
    return found


def planned_calls(body: str, offered: dict[str, dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls the steps of `body` ask for, in text order: (name, arguments)."""
    steps, _ = _sections(body)
    text = " ".join(line.strip() for line in steps if not _HEADING.match(line))
    calls: list[tuple[str, dict[str, Any]]] = []
    for sentence in _SENTENCE.split(text):
        named = sorted(
            (match.start(), name)
            for name in offered
            for match in re.finditer(rf"(?<![\w]){re.escape(name)}(?![\w])", sentence)
        )
        calls.extend((name, _arguments(sentence, offered[name])) for _, name in named)
    return calls


def final_answer(body: str) -> str:
    """The headings the output section prescribes, each with the fields listed under it."""
    _, output = _sections(body)
    lines: list[str] = []
    for line in output[1:]:
        heading, field = _HEADING.match(line), _FIELD.match(line)
        if heading is not None:
            lines += ["", f"### {heading.group(2)}"]
        elif field is not None:
            lines.append(f"- {field.group(1)}: noted")
    return "\n".join(lines).strip() or "Done."


class ProseFollower(FakeOpenAI):
    """A FakeOpenAI whose every answer is the next step of the skill in its request (see the module doc)."""

    def _answer(self, body: dict[str, Any], behaviour: Behaviour) -> dict[str, Any]:
        messages = body.get("messages") or []
        system = next((m.get("content") or "" for m in messages if m.get("role") == "system"), "")
        block = read_skill_block(system)
        offered = {
            tool["function"]["name"]: tool["function"].get("parameters") or {}
            for tool in body.get("tools") or []
            if tool.get("type") == "function"
        }
        plan = planned_calls(block[1], offered) if block is not None else []
        done = sum(1 for m in messages if m.get("role") == "tool")
        message: dict[str, Any]
        if done < len(plan):
            name, arguments = plan[done]
            function = {"name": name, "arguments": json.dumps(arguments, sort_keys=True)}
            call = {"id": f"call_{done}", "type": "function", "function": function}
            message, finish = {"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls"
        else:
            text = final_answer(block[1]) if block is not None else CANARY_ANSWER
            message, finish = {"role": "assistant", "content": text}, "stop"
        prompt_tokens = max(1, len(json.dumps(messages)) // 4)
        data = {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", self.model),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": self.reply_tokens,
                "total_tokens": prompt_tokens + self.reply_tokens,
            },
        }
        with self._lock:
            self.responses.append(data)
        return data
