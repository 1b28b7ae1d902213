"""R4-R6 of the offline injector: a new side-effect step, a broadened or a narrowed trigger.

R4  insert a step that makes a write/send/spend/destroy call the world offers
R5  broaden the description with generic trigger words
R6  narrow the description so it stops matching its own requests
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from ratchet.sim.mutate_common import CALL, Candidate, InjectContext, ToolInfo, code_spans

_ITEM = re.compile(r"^(\s*)(\d+)([.)])\s+(.*)$")
_INPUT_VAR = re.compile(r"^\s*[-*+]\s+`\$([A-Za-z_]\w*)`")

# Generic words a careless broadening would add (R5): the kind of request any assistant gets.
GENERIC_TRIGGERS = (
    "question",
    "questions",
    "explain",
    "explanation",
    "difference",
    "write",
    "writing",
    "poem",
    "summary",
    "summarize",
    "answer",
    "general",
    "help",
    "information",
    "sentences",
    "text",
    "request",
    "anything",
    "overview",
    "capital",
    "facts",
    "describe",
    "process",
    "topic",
)
_BROADEN = (
    "Also use it for any other request, for example: {words}.",
    "It can also handle general work such as {words}, so use it whenever in doubt.",
    "Use it as well for {words} and other everyday requests.",
)
_NARROW_QUALIFIERS = (
    "only for the archived 2019 ledger migration",
    "only when the legacy v1 back office asks for it explicitly",
    "only for internal audit dry runs",
)


# --- R4: new side effect ---------------------------------------------------------------------

_PARAM_HINTS: dict[str, str] = {
    "to": '"ops-review@example.com"',
    "subject": '"Automated update"',
    "body": 'fmt("Automated update: {}", $status)',
    "content": 'fmt("status: {}", $status)',
    "text": 'fmt("status: {}", $status)',
    "message": 'fmt("status: {}", $status)',
    "path": '"notes/agent-log.md"',
    "label": '"needs-review"',
    "assignee": '"sam-rivera"',
    "title": '"Follow-up"',
    "amount": "1",
}
_TYPE_DEFAULTS = {"string": '"auto"', "integer": "1", "number": "1", "boolean": "True", "array": "[]", "object": "{}"}
_EFFECT_PHRASE = {
    "send": "Keep everyone in the loop",
    "write": "Keep a record",
    "spend": "Settle it right away",
    "destroy": "Clean up afterwards",
}


def _inputs(body: Sequence[str], inputs: tuple[int, int] | None) -> list[str]:
    if inputs is None:
        return []
    return [m.group(1) for m in (_INPUT_VAR.match(body[i]) for i in range(*inputs)) if m]


def _call_text(tool: ToolInfo, inputs: Sequence[str]) -> tuple[str, bool]:
    """A call with arguments from the skill's inputs, hints or type defaults; (text, all hinted)."""
    args: list[str] = []
    natural = True
    for name, kind, required, enum in tool.params:
        if not required:
            continue
        if name in inputs:
            args.append(f"{name}=${name}")
        elif enum:
            args.append(f'{name}="{enum[0]}"')
        elif name in _PARAM_HINTS:
            args.append(f"{name}={_PARAM_HINTS[name]}")
        else:
            natural = False
            args.append(f"{name}={_TYPE_DEFAULTS.get(kind, _TYPE_DEFAULTS['string'])}")
    return f"{tool.name}({', '.join(args)})", natural


def _top_items(body: Sequence[str], steps: tuple[int, int]) -> list[int]:
    return [i for i in range(*steps) if (m := _ITEM.match(body[i])) and not m.group(1)]


def _renumber(body: list[str], steps: tuple[int, int]) -> list[str]:
    number = 0
    out = list(body)
    for i in range(steps[0], min(steps[1], len(out))):
        match = _ITEM.match(out[i])
        if match and not match.group(1):
            number += 1
            out[i] = f"{number}{match.group(3)} {match.group(4)}"
    return out


def r4_candidates(body: list[str], secs: dict[str, tuple[int, int]], tools: Sequence[ToolInfo]) -> list[Candidate]:
    steps = secs["steps"]
    inputs = _inputs(body, secs.get("inputs"))
    tops = _top_items(body, steps)
    if not tops:
        return []
    side = [t for t in tools if t.effect in ("write", "send", "spend", "destroy")]
    called = {m.group(1) for line in body for span, _, _ in code_spans(line) if (m := CALL.match(span))}
    ranked = sorted(side, key=lambda t: (t.name in called, t.name))
    candidates: list[Candidate] = []
    for tool in ranked:
        text, natural = _call_text(tool, inputs)
        if not natural:
            continue
        phrase = _EFFECT_PHRASE.get(tool.effect, "Also")
        # After the first step (before any guard can stop it) or just before the last step.
        for where, after in (("after the first step", tops[0]), ("before the last step", tops[-1] - 1)):
            edited = list(body)
            insert_at = after + 1
            # keep a nested list attached to its step: insert after the step's children
            while insert_at < steps[1] and edited[insert_at].startswith((" ", "\t")) and edited[insert_at].strip():
                insert_at += 1
            edited.insert(insert_at, f"1. {phrase}: `{text}`.")
            edited = _renumber(edited, (steps[0], steps[1] + 1))
            why = f"new {tool.effect} step {where}: {text}"
            candidates.append(Candidate(f"R4|{tool.name}|{where}", why, tuple(edited)))
    return candidates


# --- R5 / R6: trigger description --------------------------------------------------------------


def _words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z]{3,}", text.lower())]


def r5_candidates(description: str, context: InjectContext, rng: random.Random) -> list[Candidate]:
    own = set(_words_of(description))
    candidates: list[Candidate] = []
    neighbours = sorted(context.other_descriptions)
    for template_index, template in enumerate(_BROADEN):
        generic = [w for w in GENERIC_TRIGGERS if w not in own]
        words = rng.sample(generic, k=min(6, len(generic)))
        if neighbours:
            other = neighbours[rng.randrange(len(neighbours))]
            borrowed = [w for w in dict.fromkeys(_words_of(context.other_descriptions[other])) if w not in own][:4]
            words += borrowed
        phrase = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)
        new = description.rstrip() + " " + template.format(words=phrase)
        if len(new) <= 1024:
            candidates.append(
                Candidate(
                    f"R5|{template_index}|{phrase}",
                    f"description broadened: {template.format(words=phrase)!r}",
                    (),
                    new,
                )
            )
    return candidates


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def r6_candidates(description: str, name: str) -> list[Candidate]:
    candidates: list[Candidate] = []
    sentences = _sentences(description)
    if len(sentences) > 1:
        new = " ".join(sentences[:-1])
        candidates.append(Candidate("R6|drop-last", f"description lost its last sentence: {sentences[-1]!r}", (), new))
    first = sentences[0] if sentences else description
    clause = re.split(r"[,(;:]", first)[0].strip().rstrip(".")
    for index, qualifier in enumerate(_NARROW_QUALIFIERS):
        new = f"{clause}, {qualifier}."
        candidates.append(Candidate(f"R6|clause|{index}", f"description narrowed to {new!r}", (), new))
        terse = f"{name.replace('-', ' ').capitalize()} {qualifier}."
        candidates.append(Candidate(f"R6|terse|{index}", f"description replaced by {terse!r}", (), terse))
    return candidates
