"""A judge's opinion: the JSON a tier answers, parsed strictly, and what it means in code.

The judge's free text never decides anything: only the `verdict` enum and the numeric
`confidence` are read, and the pair outcome is computed from them here. Exactly one answer is read,
never from an echo of the fenced data, and an answer that states verdicts that disagree is rejected
(docs/adr/0021-strict-judge-answers.md). Prose, code fences and case around it are tolerated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
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
# A verdict stated in any form outside the fenced data: a key in any quotes (straight, single, curly),
# a nested or broken object, prose ("Verdict: regression"). Read loosely on purpose: a statement missed
# here could be the judge's real answer, hidden behind a quoted forgery. A choice list (`same|pass|...`,
# the packaged prompt's answer template) states nothing.
_STATED = re.compile(r"verdict(?P<sep>\W{0,6})(?P<word>\w*)(?P<next>.?)", re.IGNORECASE | re.DOTALL)
_QUOTES = "\"'\u201c\u201d\u2018\u2019`"
# An answer that ends in an object that never closes (`{"confidence": 0.9, "chang`): cut off.
_OPEN_OBJECT = re.compile(r"\{\s*[" + _QUOTES + r"][^{}]*$")


class ParsedAnswer(BaseModel):
    """The fields a judge must answer; everything else in its JSON is ignored."""

    verdict: JudgeVerdict
    confidence: float = Field(ge=0.0, le=1.0)
    changed_elements: list[str] = Field(default_factory=list)
    rationale: str = ""


def _json_objects(text: str) -> list[tuple[Any, int, int]]:
    """Every JSON value that starts with `{` somewhere in `text`, with its span, in order (fences and prose
    around them ignored). An object that decodes is taken whole, so objects nested in it are not read on
    their own."""
    decoder = json.JSONDecoder()
    found: list[tuple[Any, int, int]] = []
    index = text.find("{")
    while index != -1:
        try:
            value, end = decoder.raw_decode(text, index)
        except (json.JSONDecodeError, RecursionError):
            index = text.find("{", index + 1)
            continue
        found.append((value, index, end))
        index = text.find("{", end)
    return found


def answer_regions(text: str, nonce: str | None) -> list[str]:
    """The parts of `text` that can hold the judge's own answer: all of it, less any echo of the fenced data.

    Only delimiters with this call's nonce count (the data cannot contain it: judge_prompt.fence_nonce), so a
    delimiter forged in the data is just text. Only a BEGIN line followed by the END line of the same section
    fences data. ValueError when this nonce's delimiters do not pair up: a lone END or a BEGIN that never
    closes could hide the real answer on either side of it, so no side is taken as the answer.
    """
    if not nonce:
        return [text]
    regions: list[str] = []
    start, opened = 0, None
    for kind, name, begin, end in _delimiters(text, nonce):
        if kind == "BEGIN" and opened is None:
            regions.append(text[start:begin])
            opened = name
        elif kind == "END" and opened == name:
            start, opened = end, None
        else:
            raise ValueError(f"the fence delimiters in the answer do not pair up ({kind} {name or '?'})")
    if opened is not None:
        raise ValueError(f"the fence delimiters in the answer do not pair up (BEGIN {opened or '?'} never ends)")
    regions.append(text[start:])
    return regions


_DELIMITER = re.compile(r"<<<(BEGIN|END) (\w+)[ \t]*(\w*)(?:>>>)?")


def _delimiters(text: str, nonce: str) -> Iterator[tuple[str, str, int, int]]:
    """(kind, section name, start, end) of each `<<<(BEGIN|END) {nonce}\\b[ \\t]*(\\w*)(?:>>>)?` in `text`.

    A nonce of word characters (fence_nonce's hex) is found with one pattern compiled once: its token is then the
    whole word after BEGIN/END, and a delimiter with another token cannot hide one (no `<<<` falls inside a
    match). A pattern compiled per nonce cost more than the rest of reading the answer."""
    if _WORD.fullmatch(nonce):
        for match in _DELIMITER.finditer(text):
            if match.group(2) == nonce:
                yield match.group(1), match.group(3), match.start(), match.end()
        return
    for match in re.finditer(rf"<<<(BEGIN|END) {re.escape(nonce)}\b[ \t]*(\w*)(?:>>>)?", text):
        yield match.group(1), match.group(2), match.start(), match.end()


_WORD = re.compile(r"\w+")


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span cut out (a space in its place, so nothing around it joins up)."""
    kept, last = [], 0
    for begin, end in spans:
        kept.append(text[last:begin])
        last = end
    return " ".join([*kept, text[last:]])


def _stated(loose: str) -> set[str]:
    """The verdicts `loose` states in any form (`_STATED`); a list of choices states none."""
    found = (m for m in _STATED.finditer(loose) if m.group("next") not in ("|", "/"))
    return {word for word in (m.group("word").lower() for m in found) if word in JUDGE_VERDICTS}


def _cut_off(broken: str) -> str | None:
    """A verdict key in text that is no complete JSON object whose value is no verdict (`{"verdict": "regr`),
    or an object there that never closes: the judge's own answer, cut off. None when there is neither."""
    for match in _STATED.finditer(broken):
        sep, word = match.group("sep"), match.group("word").lower()
        if sep[:1] in _QUOTES and ":" in sep and word not in JUDGE_VERDICTS and match.group("next") not in ("|", "/"):
            return repr(match.group(0))
    opened = _OPEN_OBJECT.search(broken)
    return None if opened is None else f"an object that never closes: {opened.group(0)[:40]!r}"


def _valid(obj: Any, problems: list[str]) -> ParsedAnswer | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("verdict"), str):
        obj = {**obj, "verdict": obj["verdict"].strip().lower()}
    try:
        answer = ParsedAnswer.model_validate(obj)
    except ValidationError as exc:
        first = exc.errors()[0]
        problems.append(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}")
        return None
    answer.rationale = answer.rationale[:1000]
    answer.changed_elements = [str(e)[:200] for e in answer.changed_elements[:20]]
    return answer


def parse_answer(text: str | None, *, nonce: str | None = None) -> ParsedAnswer:
    """The judge's one answer: the last valid answer object outside any echo of the data fenced with `nonce`.

    ValueError when there is none; when this nonce's delimiters do not pair up (answer_regions); when the
    text outside the fenced data states verdicts that disagree (in another answer object, in a nested,
    broken or differently quoted one, or in prose: `_STATED`); when it holds a verdict key with no verdict
    (a cut-off answer) or ends in an object that never closes. A forged verdict the judge quotes from the
    data is then never the one read, and a disagreement is never settled for either side; the cascade
    asks again, then records an error (fail closed).
    """
    if not text or not text.strip():
        raise ValueError("empty answer")
    regions = answer_regions(text, nonce)
    problems: list[str] = []
    answers: list[ParsedAnswer] = []
    stated: set[str] = set()
    decoded = False
    for region in regions:
        valid: list[tuple[int, int]] = []
        spans: list[tuple[int, int]] = []
        for value, begin, end in _json_objects(region):
            decoded = True
            spans.append((begin, end))
            answer = _valid(value, problems)
            if answer is not None:  # its verdict is the answer's; its free text states nothing
                answers.append(answer)
                stated.add(answer.verdict)
                valid.append((begin, end))
        stated |= _stated(_blank(region, valid))
        cut = _cut_off(_blank(region, spans))
        if cut is not None:
            raise ValueError(f"the answer is cut off or holds a verdict that is none of the four: {cut}")
    if len(stated) > 1:
        raise ValueError(f"the answer states verdicts that disagree: {', '.join(sorted(stated))}")
    if not answers:
        if not decoded:
            raise ValueError("no JSON object in the answer" + (" outside the fenced data" if regions != [text] else ""))
        raise ValueError("no valid answer object" + (f" ({problems[0]})" if problems else ""))
    return answers[-1]
