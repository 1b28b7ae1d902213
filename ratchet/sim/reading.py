"""How a simulated judge reads two answers: which lines are framing, and which elements changed.

A careful reader does not call a removed list item, a changed field value, a different name or
a rewritten sentence "only the wording": each is a changed element. What a reader does not count
is framing (the simulated agent's stock leads and headings, ratchet.sim.agent.FRAMING_*), Markdown
heading wording, indentation, punctuation, capitals, articles and the order of lines: order is
content only for some answers, and keeping it out keeps the rules simple and the noise floor flat.

Words are compared normalized: lowercased letters and digits, with `a`, `an` and `the` dropped,
so "closed as duplicate" and "Closed as a duplicate." read alike.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from ratchet.sim.agent import FRAMING_HEADINGS, FRAMING_LEADS, NO_SKILL_NOTE

LABEL = re.compile(r"^\s*(?:[-*#]+\s*)?([A-Za-z][A-Za-z0-9 _/()-]{0,40}?)\s*:(.*)$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_MD_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_WORD = re.compile(r"[^\W_]+")
_QUOTED = re.compile(r"`([^`\n]+)`|\"([^\"\n]+)\"|\u201c([^\u201d\n]+)\u201d")
_OPENERS = frozenset("\"'`([*_\u201c\u2018>#-")
_ARTICLES = frozenset({"a", "an", "the"})
_FRAMING = tuple(
    re.compile(re.escape(text).replace(re.escape("{skill}"), r"\S+") + r"\Z")
    for text in (*FRAMING_LEADS, *FRAMING_HEADINGS, NO_SKILL_NOTE)
)
_FRAMING_WORDS = frozenset(
    {"i"}
    | {
        w.casefold()
        for text in (*FRAMING_LEADS, *FRAMING_HEADINGS, NO_SKILL_NOTE)
        for w in _WORD.findall(text.replace("{skill}", ""))
    }
)
# Per rule and direction, and per quoted text: enough to explain, short enough for the judge's budget.
_MAX_PER_RULE = 3
_MAX_SHOWN = 48

LineKind = Literal["framing", "heading", "item", "field", "header", "prose"]


@dataclass(frozen=True)
class Line:
    """One non-blank line of an answer, classified."""

    text: str
    kind: LineKind
    label: str = ""
    value: str = ""
    parent: str = ""


@dataclass
class Answer:
    """An answer as a reader holds it: its lines and every word in it."""

    lines: list[Line] = field(default_factory=list)
    words: set[str] = field(default_factory=set)


def is_framing(line: str) -> bool:
    """A stock lead or heading of the simulated agent, whatever skill it names."""
    text = line.strip()
    return any(pattern.match(text) for pattern in _FRAMING)


def words(text: str) -> tuple[str, ...]:
    """Normalized words: lowercase letters and digits, articles dropped."""
    return tuple(w for w in (m.casefold() for m in _WORD.findall(text)) if w not in _ARTICLES)


def read_answer(text: str) -> Answer:
    answer = Answer(words={w.casefold() for w in _WORD.findall(text)})
    parent = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if is_framing(line):
            answer.lines.append(Line(line, "framing"))
            parent = ""
        elif _MD_HEADING.match(raw):
            answer.lines.append(Line(line, "heading"))
            parent = ""
        elif item := ITEM.match(raw):
            answer.lines.append(Line(line, "item", value=item.group(1).strip(), parent=parent))
        elif (label := LABEL.match(raw)) and label.group(2).strip():
            answer.lines.append(Line(line, "field", label=label.group(1).strip().lower(), value=label.group(2).strip()))
            parent = ""
        elif label:
            parent = label.group(1).strip().lower()
            answer.lines.append(Line(line, "header", label=parent))
        else:
            answer.lines.append(Line(line, "prose"))
            parent = ""
    return answer


def _first(found: list[str]) -> list[str]:
    unique = list(dict.fromkeys(found))
    return [text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 1] + "\u2026" for text in unique[:_MAX_PER_RULE]]


def _items(answer: Answer) -> dict[tuple[str, tuple[str, ...]], str]:
    shown: dict[tuple[str, tuple[str, ...]], str] = {}
    for line in answer.lines:
        key = (line.parent, words(line.value))
        if line.kind == "item" and key[1]:
            shown.setdefault(key, f"{line.parent}: {line.value}" if line.parent else line.value)
    return shown


def _list_changes(golden: Answer, replay: Answer) -> list[str]:
    ours, theirs = _items(golden), _items(replay)
    removed = [f"list item removed: {text}" for key, text in ours.items() if key not in theirs]
    added = [f"list item added: {text}" for key, text in theirs.items() if key not in ours]
    return _first(removed) + _first(added)


def _fields(answer: Answer) -> dict[str, list[tuple[str, ...]]]:
    values: dict[str, list[tuple[str, ...]]] = {}
    for line in answer.lines:
        if line.kind == "field":
            values.setdefault(line.label, []).append(words(line.value))
    return values


def _field_changes(golden: Answer, replay: Answer) -> list[str]:
    ours, theirs = _fields(golden), _fields(replay)
    return _first(
        [
            f"field changed: {label}"
            for label, values in ours.items()
            if label in theirs and sorted(values) != sorted(theirs[label])
        ]
    )


def _starts_sentence(text: str, start: int) -> bool:
    """Whether only openers (spaces, quotes, brackets, list and heading marks) stand between the
    start of the line or the end of a sentence and `start`. A scan back, not a regex on the
    prefix: a long line must cost linear time, whatever the replay wrote."""
    index = start - 1
    while index >= 0 and (text[index].isspace() or text[index] in _OPENERS):
        index -= 1
    return index < 0 or text[index] in ".!?"


def _names(line: Line) -> list[str]:
    """Capitalised words that do not start the line or a sentence, and every quoted word."""
    found: list[str] = []
    for match in _WORD.finditer(line.text):
        token = match.group(0)
        if token[0].isupper() and not _starts_sentence(line.text, match.start()):
            found.append(token)
    for quoted in _QUOTED.finditer(line.text):
        found.extend(_WORD.findall(next(g for g in quoted.groups() if g is not None)))
    return [name for name in found if name.casefold() not in _FRAMING_WORDS | _ARTICLES]


def _name_changes(golden: Answer, replay: Answer) -> list[str]:
    def only(ours: Answer, theirs: Answer) -> list[str]:
        return [
            name
            for line in ours.lines
            if line.kind != "framing"
            for name in _names(line)
            if name.casefold() not in theirs.words
        ]

    return [f"name only in the golden: {name}" for name in _first(only(golden, replay))] + [
        f"name only in the replay: {name}" for name in _first(only(replay, golden))
    ]


def _line_changes(golden: Answer, replay: Answer) -> list[str]:
    def only(ours: Answer, theirs: Answer) -> list[str]:
        return [
            line.text
            for line in ours.lines
            if line.kind == "prose" and any(w not in theirs.words for w in words(line.text))
        ]

    return [f"line only in the golden: {text}" for text in _first(only(golden, replay))] + [
        f"line only in the replay: {text}" for text in _first(only(replay, golden))
    ]


def reader_changes(golden_text: str, replay_text: str) -> list[str]:
    """The changed elements a careful reader finds between two answers, in a fixed order."""
    golden, replay = read_answer(golden_text), read_answer(replay_text)
    return [
        *_list_changes(golden, replay),
        *_field_changes(golden, replay),
        *_name_changes(golden, replay),
        *_line_changes(golden, replay),
    ]
