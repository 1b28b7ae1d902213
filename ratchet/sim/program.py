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

Kinds known to the input extractor: `owner/name`, `#number`, `file path`, `YYYY-MM-DD`,
`currency code`, `email`, `@handle`, `number`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ratchet.markup import drop_html_comments
from ratchet.sim.expr import ExprError, to_python

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+(.*)$")
_SPAN = re.compile(r"`([^`\n]+)`")
_ASSIGN = re.compile(r"^\$([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.S)
_CALL = re.compile(r"^([A-Za-z_][\w-]*)\s*\((.*)\)\s*$", re.S)
_DEFAULT = re.compile(r"default\s*`([^`\n]+)`", re.I)

StepKind = Literal["do", "if", "elif", "else", "for"]


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


@dataclass
class _Item:
    indent: int
    text: str
    children: list[_Item] = field(default_factory=list)


def _sections(body: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in drop_html_comments(body).splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            name = heading.group(1).strip().lower().rstrip(":")
            current = sections.setdefault({"outputs": "output", "input": "inputs"}.get(name, name), [])
        elif current is not None and not fenced:
            current.append(line)
    return sections


def _items(lines: list[str]) -> list[_Item]:
    roots: list[_Item] = []
    stack: list[_Item] = []
    last: _Item | None = None
    for line in lines:
        match = _ITEM.match(line)
        if match:
            item = _Item(len(match.group(1).expandtabs(4)), match.group(2).strip())
            while stack and stack[-1].indent >= item.indent:
                stack.pop()
            (stack[-1].children if stack else roots).append(item)
            stack.append(item)
            last = item
        elif line.strip() and last is not None and line[:1].isspace():
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


def _actions(text: str, spans: list[tuple[str, int, int]], tools: frozenset[str]) -> list[Action]:
    actions: list[Action] = []
    skip: set[int] = set()
    for i, (span, _, end) in enumerate(spans):
        if i in skip:
            continue
        if span == "stop":
            actions.append(Action("stop"))
            continue
        assign = _ASSIGN.match(span)
        if assign:
            actions.append(Action("assign", target=assign.group(1), expr=assign.group(2)))
            continue
        call = _CALL.match(span)
        if call and call.group(1) in tools:
            try:
                args = _call_args(call.group(2))
            except ExprError:
                continue  # unreadable call: a model would skip what it cannot parse, so do we
            target = None
            if i + 1 < len(spans) and re.fullmatch(r"\s*as\s*", text[end : spans[i + 1][1]]):
                target = spans[i + 1][0].lstrip("$")
                skip.add(i + 1)
            actions.append(Action("call", target=target, tool=call.group(1), args=args))
    return actions


def _step(item: _Item, tools: frozenset[str]) -> Step:
    text, spans = item.text, _spans(item.text)
    lead = text[: spans[0][1]].strip().lower() if spans else text.lower()
    children = [_step(child, tools) for child in item.children]
    kind: StepKind = "do"
    head: list[tuple[str, int, int]] = []
    if lead.startswith(("otherwise", "else")):
        kind = "elif" if "if" in lead.replace(",", " ").split() and spans else "else"
    elif lead.startswith("if") and spans:
        kind = "if"
    elif lead.startswith("for each") and len(spans) >= 2:
        kind = "for"
    if kind in ("if", "elif"):
        head, spans = spans[:1], spans[1:]
        return Step(kind, _actions(text, spans, tools), children, cond=head[0][0])
    if kind == "for":
        head, spans = spans[:2], spans[2:]
        return Step(kind, _actions(text, spans, tools), children, cond=head[1][0], var=head[0][0].lstrip("$"))
    return Step(kind, _actions(text, spans, tools), children)


def parse_program(body: str, tools: frozenset[str]) -> Program:
    """The program a skill body describes, given the tool names the model is offered."""
    sections = _sections(body)
    program = Program()
    for item in _items(sections.get("inputs", [])):
        spans = _spans(item.text)
        if len(spans) >= 2 and spans[0][0].startswith("$"):
            default = _DEFAULT.search(item.text)
            program.inputs.append(InputSpec(spans[0][0][1:], spans[1][0].lower(), default.group(1) if default else None))
    program.steps = [_step(item, tools) for item in _items(sections.get("steps", []))]
    for item in _items(sections.get("output", [])):
        spans = _spans(item.text)
        if len(spans) >= 2:
            program.outputs.append((spans[0][0].lstrip("$"), spans[1][0]))
        elif len(spans) == 1 and spans[0][0].startswith("$"):
            program.outputs.append((spans[0][0][1:], spans[0][0]))
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
