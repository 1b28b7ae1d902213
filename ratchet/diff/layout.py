"""Layout: the one test that lets the diff call a Markdown edit cosmetic.

Why: the classifier pairs instructions by their text, so it names what was added, removed or
reworded; but an instruction that moved (to another section, out from under its condition, above
the step it used to follow) has the same text on both sides, and a classifier that finds nothing
must not conclude that nothing changed. A check PASSes a cosmetic edit without replaying it
(ratchet.gate.static), so "cosmetic" is decided here, conservatively, on the text as the harness
sends it:

- the document is cut into units in order: each heading, list item (its marker and indentation
  kept), table row, quote line or paragraph, with its continuation lines joined; a fenced code block
  is one unit kept byte for byte (blank lines and indentation included); a line indented four or more
  columns past its unit is a unit of its own, indentation kept (an indented code block);
- inside a unit, runs of whitespace are one space except inside `code spans`, table cells are
  trimmed and a table's rule row is only its column count;
- blank lines between units, line breaks inside a paragraph or item (a reflow), trailing whitespace
  and line endings are layout.

Two files with the same units in the same order read the same; anything else (a reordering, a
move between sections, a change of nesting or list numbering, whitespace inside code) is not proved
cosmetic, and the check replays it.
"""

from __future__ import annotations

import re

__all__ = ["layout_units"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM = re.compile(r"^( *)([-*+]|\d+[.)])(\s+|$)")
_HEADING = re.compile(r"^ {0,3}#{1,6}(\s|$)")
_TABLE = re.compile(r"^ *\|")
_RULE_ROW = re.compile(r"^ *\|?[\s:|-]+\|?\s*$")
_QUOTE = re.compile(r"^ *>")
_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)


def layout_units(text: str) -> list[str]:
    """The units of `text` (already as the harness sends it) in order; see the module docstring."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    units: list[str] = []
    current: list[str] = []
    indent = 0

    def flush() -> None:
        nonlocal current
        if current:
            units.append(f"{indent}:{_squeeze(' '.join(current))}")  # the indentation is the nesting
            current = []

    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker, block = fence.group(1), [line]
            index += 1
            while index < len(lines) and not lines[index].lstrip().startswith(marker):
                block.append(lines[index].rstrip())
                index += 1
            if index < len(lines):
                block.append(lines[index].rstrip())
            units.append("\n".join(block))
            index += 1
            continue
        index += 1
        if not line.strip():
            flush()
            continue
        width = len(line) - len(line.lstrip(" "))
        item = _ITEM.match(line)
        if item or _HEADING.match(line) or _QUOTE.match(line):
            flush()
            indent = width
            current = [line.strip()]
            if _HEADING.match(line):
                flush()
            continue
        if _TABLE.match(line):
            flush()
            units.append(_table_row(line))
            continue
        if current and width >= indent + 4:
            flush()
            units.append(line)  # an indented code line: its indentation is what it means
            continue
        if not current:
            indent = width
        current.append(line.strip())
    flush()
    return _numbers_as_order(units)


_ORDERED_UNIT = re.compile(r"^(\d+):(\d+)([.)])")


def _numbers_as_order(units: list[str]) -> list[str]:
    """Ordered items' numbers written as `#` when, in every list, they never go down.

    Then they only say "in this order", which the units' order already says: renumbering 1. 1. 1. to
    1. 2. 3. is layout. A list whose numbers go down (`2. A` above `1. B`) states another order than
    the text's, so there every number is kept and a change to one is a change."""
    lists: dict[int, int] = {}  # indent -> the last number of the list open at that indent
    for unit in units:
        indent = int(unit.split(":", 1)[0]) if unit[:1].isdigit() else 0
        ordered = _ORDERED_UNIT.match(unit)
        for open_at in [at for at in lists if at > indent or (at == indent and not ordered)]:
            del lists[open_at]
        if ordered:
            number = int(ordered.group(2))
            if indent in lists and number < lists[indent]:
                return units
            lists[indent] = number
    return [_ORDERED_UNIT.sub(lambda m: f"{m.group(1)}:#{m.group(3)}", unit) for unit in units]


def _table_row(line: str) -> str:
    if _RULE_ROW.match(line) and "-" in line:
        return "|" + "|".join("-" for _ in line.strip().strip("|").split("|")) + "|"
    return "|" + "|".join(_squeeze(cell.strip()) for cell in line.strip().strip("|").split("|")) + "|"


def _squeeze(text: str) -> str:
    """Runs of whitespace as one space, except inside `code spans`, which are kept as written."""
    out: list[str] = []
    last = 0
    for span in _SPAN.finditer(text):
        out.append(re.sub(r"\s+", " ", text[last : span.start()]))
        out.append(span.group(0))
        last = span.end()
    out.append(re.sub(r"\s+", " ", text[last:]))
    return "".join(out).strip()
