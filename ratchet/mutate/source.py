"""What every mutation operator reads (a `Source`: one SKILL.md, its lines and instructions, the offered tools)
and makes (an `Edit`: the whole new SKILL.md, its class and the line it changes), with the helpers that find a
list item's, a section's or a sentence's extent in the raw text so an edit removes exactly that.

The instructions come from the behavioural diff's model-free reader (ratchet.diff.instructions): it already
knows steps, sentences, output elements and their lines; the operators edit the raw lines it points at.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass, field

from ratchet.diff.instructions import Instruction, read_instructions
from ratchet.mutate.models import MutantClass
from ratchet.sim.injector import ToolInfo

LIST_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(\s+|$)(.*)$")
HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_SPAN = re.compile(r"`[^`\n]*`")


@dataclass(frozen=True)
class Edit:
    """One candidate mutant before it is checked: the whole new SKILL.md and what changed where."""

    operator: str
    mutant_class: MutantClass
    line: int  # 1-based SKILL.md line the change starts on
    what: str  # one line, for the mutant's description
    text: str  # the whole new SKILL.md


@dataclass(frozen=True)
class Source:
    """One skill's SKILL.md as the operators see it (newlines normalised to \\n)."""

    name: str
    text: str
    tools: tuple[ToolInfo, ...]
    seed: int
    lines: tuple[str, ...] = field(init=False)
    body_start: int = field(init=False)  # 0-based index of the first body line
    instructions: tuple[Instruction, ...] = field(init=False)

    def __post_init__(self) -> None:
        lines = tuple(self.text.split("\n"))
        closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), 0)
        object.__setattr__(self, "lines", lines)
        object.__setattr__(self, "body_start", closing + 1)
        # Comments are kept (Claude Code, Codex send SKILL.md as written); an edit inside one is dropped
        # later as equivalent, since a skill's substance is blind to comments.
        found = read_instructions(self.text, strips_comments=False)
        object.__setattr__(self, "instructions", tuple(i for i in found if i.field_name is None))

    def rng(self, operator: str) -> random.Random:
        """The generator for one operator of this skill: seeded through sha256, never global state."""
        digest = hashlib.sha256(f"mutate|{self.seed}|{self.name}|{operator}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def without(self, start: int, end: int) -> str:
        """The text with lines [start, end) removed, and a blank line left doubled by it closed up."""
        lines = list(self.lines[:start]) + list(self.lines[end:])
        if 0 < start < len(lines) and not lines[start - 1].strip() and not lines[start].strip():
            del lines[start]
        return "\n".join(lines)

    def replaced(self, index: int, new: str) -> str:
        """The text with line `index` replaced by `new` (which may hold several lines)."""
        return "\n".join([*self.lines[:index], new, *self.lines[index + 1 :]])

    def offset(self, index: int) -> int:
        """Character offset of line `index` in the text."""
        return sum(len(line) + 1 for line in self.lines[:index])

    def prose_lines(self) -> list[int]:
        """Indices of body lines a person reads as prose: outside code fences, not headings, not blank."""
        found: list[int] = []
        fence: str | None = None
        for index in range(self.body_start, len(self.lines)):
            line = self.lines[index]
            marker = FENCE.match(line)
            if marker is not None:
                if fence is None:
                    fence = marker.group(1)[0]
                elif marker.group(1)[0] == fence:
                    fence = None
                continue
            if fence is None and line.strip() and not HEADING.match(line):
                found.append(index)
        return found


# --- extents ---------------------------------------------------------------------------------------


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def item_end(lines: tuple[str, ...], index: int, *, children: bool = True) -> int:
    """Exclusive end of the list item on line `index`: its wrapped lines and (with children) nested items."""
    match = LIST_ITEM.match(lines[index])
    indent = _indent(lines[index]) if match is None else len(match.group(1))
    end = index + 1
    while end < len(lines):
        line = lines[end]
        if not line.strip():
            # A blank line ends the item unless an indented line of it follows.
            after = next((j for j in range(end, len(lines)) if lines[j].strip()), len(lines))
            if (
                after < len(lines)
                and _indent(lines[after]) > indent
                and (children or not LIST_ITEM.match(lines[after]))
            ):
                end = after
                continue
            break
        nested = LIST_ITEM.match(line)
        if _indent(line) <= indent and (nested or HEADING.match(line) or FENCE.match(line)):
            break
        if nested and not children:
            break
        end += 1
    return end


def heading_level(line: str) -> int:
    match = HEADING.match(line)
    return len(match.group(1)) if match else 0


def section_end(source: Source, index: int) -> int:
    """Exclusive end of the section whose heading is on line `index`: up to a heading of its level or above."""
    level = heading_level(source.lines[index])
    later = [i.line - 1 for i in source.instructions if i.kind == "heading" and i.line - 1 > index]
    return next((j for j in later if heading_level(source.lines[j]) <= level), len(source.lines))


def locate(source: Source, instruction: Instruction) -> tuple[int, int] | None:
    """(start, end) character offsets of a sentence or list item's text in SKILL.md, or None."""
    words = instruction.text.split()
    if not words:
        return None
    pattern = re.compile(r"\s+".join(re.escape(word) for word in words))
    start = source.offset(instruction.line - 1)
    match = pattern.search(source.text, start)
    if match is None or match.start() >= start + len(source.lines[instruction.line - 1]) + 1:
        return None
    return match.start(), match.end()


def cut(text: str, start: int, end: int) -> str:
    """The text without [start, end) and the spaces it leaves; a line (or lines) it empties is removed."""
    while end < len(text) and text[end] == " ":
        end += 1
    if end >= len(text) or text[end] == "\n":
        while start > 0 and text[start - 1] == " ":
            start -= 1
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if not (text[line_start:start] + text[end:line_end]).strip():
        return text[:line_start] + text[line_end + 1 :]
    return text[:start] + text[end:]


def outside_spans(line: str, start: int) -> bool:
    """Is position `start` of the line outside every backtick span?"""
    return not any(m.start() <= start < m.end() for m in _SPAN.finditer(line))


def capitalised(text: str) -> str:
    """The first letter upper-cased (after any leading punctuation or markup)."""
    for index, char in enumerate(text):
        if char.isalpha():
            return text[:index] + char.upper() + text[index + 1 :]
        if char not in "*_\"'([ ":
            return text
    return text


def first_changed(lines: tuple[str, ...], text: str) -> int:
    """1-based line of `text` where it first differs from `lines`."""
    new = text.split("\n")
    for index, (old, changed) in enumerate(zip(lines, new, strict=False)):
        if old != changed:
            return index + 1
    return min(len(lines), len(new) - 1) + 1


def shorten(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3].rstrip() + "..."
