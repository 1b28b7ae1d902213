"""Reading a skill body as a program the simulated agent can follow.

The convention lives inside ordinary Markdown, so a human and a real model read the same text
(docs/adr/0001-simulator.md). Only backticked spans carry meaning to the simulator; prose
outside backticks, blank lines and <!-- comments --> are for people and never change what it does.

    ## Inputs            one bullet per value to take from the request:
    - `$repo`: the repository, written `owner/name`.      first span = variable, second = kind
    - `$file`: the expense file, a `file path` (default `"expenses.csv"`).
    ## Steps             a numbered list, nested lists for bodies; each item's spans run in order:
    1. Read it: `github_get_issue(repo=$repo, number=$number)` as `$issue`.   a call to an offered tool
    2. `$text = lower($issue.title)`                                          an assignment
    3. If `$issue.error`: note it `$status = "not found"` and `stop`.         condition + inline body
    4. Otherwise, if `cond`: ...   /   Otherwise: ...                        else-if / else
    5. For each `$row` in `$rows`: (nested items are the loop body)
    ## Output            one bullet per field: - `field`: `expression`  -> rendered `field: value`

A step that reads as a condition or loop ("If ...", "Otherwise, if ...", "For each ...", "When ...",
"Unless ...") without the spans above is `unread`: skipped with its children and the branches
chained after it, and listed with its line by ratchet/sim/follow.py, never run as if unconditional.

Kinds known to the input extractor: `owner/name`, `#number`, `file path`, `YYYY-MM-DD`,
`currency code`, `email`, `@handle`, `number`.
"""

from __future__ import annotations

import ast
import functools
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any, Literal

from ratchet.core.markup import kept_outside_html_comments
from ratchet.sim.expr import FUNCTIONS, ExprError, to_python

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+(.*)$")
_SPAN = re.compile(r"`([^`\n]+)`")
_ASSIGN = re.compile(r"^\$([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.S)
_CALL = re.compile(r"^([A-Za-z_][\w-]*)\s*\((.*)\)\s*$", re.S)
_DEFAULT = re.compile(r"default\s*`([^`\n]+)`", re.I)

# A lead that reads as a condition or a loop (kept apart from "otherwise"/"else", parsed below).
_CONDITIONAL = re.compile(r"^(?:if|when|whenever|unless|for each|for every|in case)\b")

# "unread": a condition or loop written without the spans the parser needs. It is skipped with
# its children: running them as if unconditional would follow the skill wrongly without saying so.
StepKind = Literal["do", "if", "elif", "else", "for", "unread"]


@dataclass
class Unfollowed:
    """A part of the Steps section the simulator saw but could not act on (docs/adr/0012)."""

    line: int
    text: str
    why: str
    last: int = 0
    """Last body line of the step, its wrapped lines and nested items included."""


@dataclass
class Action:
    kind: Literal["assign", "call", "stop"]
    target: str | None = None
    expr: str = ""
    tool: str = ""
    args: list[tuple[str, ast.expr]] = field(default_factory=list)


@dataclass
class Step:
    kind: StepKind
    actions: list[Action] = field(default_factory=list)
    children: list[Step] = field(default_factory=list)
    cond: str = ""
    var: str = ""
    line: int = 0


@dataclass
class InputSpec:
    var: str
    kind: str
    default: str | None = None


@dataclass
class Program:
    inputs: list[InputSpec] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    outputs: list[tuple[str, str]] = field(default_factory=list)
    read_lines: set[int] = field(default_factory=set)
    """Body lines (1-based) holding a span the simulator acts on, or a section heading it reads."""
    unfollowed: list[Unfollowed] = field(default_factory=list)
    """Steps and spans it saw and could not act on, in body order."""


@dataclass
class _Item:
    indent: int
    text: str
    line: int
    children: list[_Item] = field(default_factory=list)
    pieces: list[tuple[int, int]] = field(default_factory=list)
    """(offset in text, body line) where each source line of a wrapped item starts."""

    def last_line(self) -> int:
        return max([self.pieces[-1][1], *(child.last_line() for child in self.children)])

    def line_at(self, offset: int) -> int:
        return self.pieces[bisect_right([start for start, _ in self.pieces], offset) - 1][1]


def numbered_lines(body: str) -> list[tuple[int, str]]:
    """`drop_html_comments(body).splitlines()`, each line with the 1-based body line it starts on.

    The same lines the parser always read (so every program parses as before), numbered so a
    report can name SKILL.md:LINE even after a comment spanning lines was dropped.
    """
    segments = kept_outside_html_comments(body)
    kept: list[tuple[int, int]] = []  # (offset in the kept text, offset in body) per kept segment
    size = 0
    for start, end in segments:
        kept.append((size, start))
        size += end - start
    text = "".join(body[start:end] for start, end in segments)
    newlines = [i for i, char in enumerate(body) if char == "\n"]
    starts = [out for out, _ in kept]
    numbered: list[tuple[int, str]] = []
    offset = 0
    for line, whole in zip(text.splitlines(), text.splitlines(keepends=True), strict=True):
        segment = bisect_right(starts, offset) - 1
        numbered.append((bisect_left(newlines, kept[segment][1] + offset - kept[segment][0]) + 1, line))
        offset += len(whole)
    return numbered


def _sections(body: str, read: set[int]) -> dict[str, list[tuple[int, str]]]:
    sections: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    fenced = False
    for number, line in numbered_lines(body):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            name = heading.group(1).strip().lower().rstrip(":")
            name = {"outputs": "output", "input": "inputs"}.get(name, name)
            current = sections.setdefault(name, [])
            if name in ("inputs", "steps", "output"):
                read.add(number)
        elif current is not None and not fenced:
            current.append((number, line))
    return sections


def _items(lines: list[tuple[int, str]]) -> list[_Item]:
    roots: list[_Item] = []
    stack: list[_Item] = []
    last: _Item | None = None
    for number, line in lines:
        match = _ITEM.match(line)
        if match:
            item = _Item(len(match.group(1).expandtabs(4)), match.group(2).strip(), number, pieces=[(0, number)])
            while stack and stack[-1].indent >= item.indent:
                stack.pop()
            (stack[-1].children if stack else roots).append(item)
            stack.append(item)
            last = item
        elif line.strip() and last is not None and line[:1].isspace():
            last.pieces.append((len(last.text) + 1, number))
            last.text += " " + line.strip()
    return roots


def _spans(text: str) -> list[tuple[str, int, int]]:
    return [(m.group(1).strip(), m.start(), m.end()) for m in _SPAN.finditer(text)]


def _call_args(source: str) -> list[tuple[str, ast.expr]]:
    try:
        call = ast.parse(f"f({to_python(source)})", mode="eval").body
    except SyntaxError:
        raise ExprError(f"bad arguments: {source!r}") from None
    assert isinstance(call, ast.Call)
    return [(kw.arg, kw.value) for kw in call.keywords if kw.arg is not None]


_SHORT = 80


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 3].rstrip() + "..."


@dataclass
class _Reader:
    """What parsing one body needs besides the text: the offered tools, and where to note what it read."""

    tools: frozenset[str]
    read: set[int] = field(default_factory=set)
    unfollowed: list[Unfollowed] = field(default_factory=list)

    def note(self, line: int, text: str, why: str, last: int = 0) -> None:
        self.unfollowed.append(Unfollowed(line, _short(text), why, max(line, last)))


def _actions(item: _Item, spans: list[tuple[str, int, int]], reader: _Reader) -> list[Action]:
    text, tools = item.text, reader.tools
    actions: list[Action] = []
    skip: set[int] = set()
    for i, (span, start, end) in enumerate(spans):
        if i in skip:
            continue
        if span == "stop":
            actions.append(Action("stop"))
            reader.read.add(item.line_at(start))
            continue
        assign = _ASSIGN.match(span)
        if assign:
            actions.append(Action("assign", target=assign.group(1), expr=assign.group(2)))
            reader.read.add(item.line_at(start))
            continue
        call = _CALL.match(span)
        if call and call.group(1) in tools:
            try:
                args = _call_args(call.group(2))
            except ExprError:
                # A model would skip what it cannot parse, so do we; the report names it.
                reader.note(item.line_at(start), span, "a call with arguments it cannot parse")
                continue
            target = None
            if i + 1 < len(spans) and re.fullmatch(r"\s*as\s*", text[end : spans[i + 1][1]]):
                target = spans[i + 1][0].lstrip("$")
                skip.add(i + 1)
            actions.append(Action("call", target=target, tool=call.group(1), args=args))
            reader.read.add(item.line_at(start))
        elif call and call.group(1) not in FUNCTIONS:
            reader.note(item.line_at(start), span, f"a tool it is not offered: {call.group(1)}")
    return actions


def _step(item: _Item, reader: _Reader) -> Step:
    text, spans = item.text, _spans(item.text)
    lead = text[: spans[0][1]].strip().lower() if spans else text.lower()
    kind: StepKind = "do"
    head: list[tuple[str, int, int]] = []
    if lead.startswith(("otherwise", "else")):
        kind = "elif" if "if" in lead.replace(",", " ").split() and spans else "else"
        if kind == "else" and "if" in lead.replace(",", " ").split():
            kind = "unread"
    elif lead.startswith("if") and spans:
        kind = "if"
    elif lead.startswith("for each") and len(spans) >= 2:
        kind = "for"
    elif _CONDITIONAL.match(lead):
        kind = "unread"
    if kind == "unread":
        # Its children are never run, so nothing in them is read: parse them aside.
        reader.note(item.line, text, "a condition the simulator cannot read", item.last_line())
        return Step(kind, [], _block(item.children, _Reader(reader.tools)), line=item.line)
    children = _block(item.children, reader)
    if kind in ("if", "elif"):
        head, spans = spans[:1], spans[1:]
        reader.read.add(item.line_at(head[0][1]))
        return Step(kind, _actions(item, spans, reader), children, cond=head[0][0], line=item.line)
    if kind == "for":
        head, spans = spans[:2], spans[2:]
        reader.read.update(item.line_at(span[1]) for span in head)
        actions = _actions(item, spans, reader)
        return Step(kind, actions, children, cond=head[1][0], var=head[0][0].lstrip("$"), line=item.line)
    return Step(kind, _actions(item, spans, reader), children, line=item.line)


def _block(items: list[_Item], reader: _Reader) -> list[Step]:
    steps: list[Step] = []
    for item in items:
        if steps and steps[-1].kind == "unread":
            aside = _step(item, _Reader(reader.tools))
            if aside.kind in ("elif", "else"):
                # The interpreter skips the branches chained after an unread condition; say so.
                reader.note(item.line, item.text, "a branch of a condition the simulator cannot read", item.last_line())
                steps.append(Step("unread", [], aside.children, line=item.line))
                continue
        steps.append(_step(item, reader))
    return steps


@functools.lru_cache(maxsize=256)
def kept_program(body: str, tools: frozenset[str]) -> Program:
    """parse_program, kept for the process by its arguments: the agent re-reads its skill on every call
    (stateless), and the gate reports what each edit's skills can be followed; both only read a Program."""
    return parse_program(body, tools)


def parse_program(body: str, tools: frozenset[str]) -> Program:
    """The program a skill body describes, given the tool names the model is offered."""
    reader = _Reader(tools)
    sections = _sections(body, reader.read)
    program = Program()
    for item in _items(sections.get("inputs", [])):
        spans = _spans(item.text)
        if len(spans) >= 2 and spans[0][0].startswith("$"):
            default = _DEFAULT.search(item.text)
            program.inputs.append(
                InputSpec(spans[0][0][1:], spans[1][0].lower(), default.group(1) if default else None)
            )
            reader.read.update(item.line_at(span[1]) for span in spans[:2])
            if default:
                reader.read.add(item.line_at(default.start(1)))
    program.steps = _block(_items(sections.get("steps", [])), reader)
    for item in _items(sections.get("output", [])):
        spans = _spans(item.text)
        if len(spans) >= 2:
            program.outputs.append((spans[0][0].lstrip("$"), spans[1][0]))
            reader.read.update(item.line_at(span[1]) for span in spans[:2])
        elif len(spans) == 1 and spans[0][0].startswith("$"):
            program.outputs.append((spans[0][0][1:], spans[0][0]))
            reader.read.add(item.line_at(spans[0][1]))
    program.read_lines, program.unfollowed = reader.read, reader.unfollowed
    return program


_KINDS: dict[str, str] = {
    "owner/name": r"\b([A-Za-z0-9][\w-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])\b(?!\.\w)",
    "#number": r"#(\d+)\b|\bissue\s+(?:number\s+|no\.?\s*)?(\d+)\b",
    "file path": r"(?<![\w@])((?:[\w-]+/)*[\w.-]+\.(?:csv|json|txt|md|yaml|yml|tsv))\b",
    "yyyy-mm-dd": r"\b(\d{4}-\d{2}-\d{2})\b",
    "currency code": r"\b(USD|EUR|GBP|JPY|CHF|CAD|AUD|SEK|NOK|DKK|MXN|INR|CNY|SGD|BRL)\b",
    "email": r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b",
    "@handle": r"(?<![\w.])@([A-Za-z0-9][\w-]*)",
    "number": r"(?<![\w.-])(\d+(?:\.\d+)?)\b",
}


def extract(kind: str, text: str) -> Any:
    """The first entity of a kind in the request text, or None."""
    pattern = _KINDS.get(kind)
    if pattern is None:
        return None
    for match in re.finditer(pattern, text):
        value = next((g for g in match.groups() if g is not None), match.group(0))
        if kind == "owner/name" and re.search(r"\.(csv|json|txt|md|yaml|yml|tsv)$", value):
            continue
        if kind == "#number":
            return int(value)
        if kind == "number":
            return float(value) if "." in value else int(value)
        return value
    return None
