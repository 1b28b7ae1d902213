"""What the offline injector's R1-R6 operators share: their inputs, a candidate edit, SKILL.md reading.

ToolInfo and InjectContext are what the injector may look at; a Candidate is one edit an operator
can propose. The helpers read the skill convention: frontmatter and body, sections by heading,
and the backtick spans of a line (calls, assignments, conditions). ratchet.sim.injector re-exports
the public names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import yaml

_SPAN = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
BULLET = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+(.*)$")
CALL = re.compile(r"^([A-Za-z_][\w-]*)\s*\((.*)\)\s*$", re.S)


@dataclass(frozen=True)
class ToolInfo:
    """What the injector knows about an offered tool (what a model would see in its spec)."""

    name: str
    effect: str
    params: tuple[tuple[str, str, bool, tuple[str, ...]], ...]  # (name, json type, required, enum)


@dataclass(frozen=True)
class InjectContext:
    """Everything the injector may look at besides the skill itself."""

    tools: tuple[ToolInfo, ...]
    other_descriptions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Candidate:
    """One edit an operator can propose: the edited body lines or a new description."""

    key: str
    description: str
    lines: tuple[str, ...]  # the edited body lines, or () for a frontmatter edit
    new_description: str | None = None


# --- SKILL.md structure ----------------------------------------------------------------------


def split_skill(text: str) -> tuple[str, str]:
    """(frontmatter block including both '---' lines and the newline after, body)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise ValueError("SKILL.md has no frontmatter")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[: index + 1]) + "\n", "\n".join(lines[index + 1 :])
    raise ValueError("SKILL.md frontmatter is not terminated")


def sections(lines: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Heading name (lowercase) -> (first line after the heading, end line), fences skipped."""
    found: list[tuple[str, int]] = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            name = match.group(2).strip().lower().rstrip(":")
            found.append(({"outputs": "output", "input": "inputs"}.get(name, name), index))
    result: dict[str, tuple[int, int]] = {}
    for i, (name, start) in enumerate(found):
        end = found[i + 1][1] if i + 1 < len(found) else len(lines)
        result.setdefault(name, (start + 1, end))
    return result


def with_description(frontmatter: str, description: str) -> str:
    """The frontmatter with its description replaced by a single-line YAML scalar."""
    lines = frontmatter.rstrip("\n").split("\n")
    out: list[str] = []
    skipping = False
    for line in lines:
        if skipping:
            if line.startswith((" ", "\t")) and line.strip():
                continue
            skipping = False
        if re.match(r"^description\s*:", line):
            dumped = yaml.safe_dump({"description": description}, width=100_000, allow_unicode=True).strip()
            out.append(dumped)
            skipping = True
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def description_of(frontmatter: str) -> str:
    inner = frontmatter.strip().strip("-").strip("\n")
    raw = yaml.safe_load(inner)
    return str(raw.get("description", "")) if isinstance(raw, dict) else ""


def mask_literals(text: str) -> str:
    """The text with string literals' insides blanked, so operators inside them are not seen."""
    out = list(text)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, len(text))):
                out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out)


def replace_span(line: str, start: int, end: int, new: str) -> str:
    return line[:start] + "`" + new + "`" + line[end:]


def code_spans(line: str) -> list[tuple[str, int, int]]:
    return [(m.group(1), m.start(), m.end()) for m in _SPAN.finditer(line)]


def lead_text(line: str) -> str:
    match = BULLET.match(line)
    text = match.group(2) if match else line
    first = text.find("`")
    return (text if first < 0 else text[:first]).strip().lower()
