"""The structural text operators over a free-form skill: delete a step, a bullet, a sentence or a section;
drop an output field or heading. The class follows what is deleted: a part of the procedure is R1 (the
skill no longer does something), an output element is R2 (the answer loses a part).

What is a step, an output element, a sentence comes from the behavioural diff's reader
(ratchet.diff.instructions): `Instruction.output` marks what sits under an output heading or lead-in
("## Output", "Reply with these fields:"), `ordered` a numbered step, `item_start` a list item's first
sentence.
"""

from __future__ import annotations

import re

from ratchet.diff.instructions import Instruction
from ratchet.diff.lexicon.sections import OUTPUT_HEADING
from ratchet.mutate.models import MutantClass
from ratchet.mutate.source import HEADING, LIST_ITEM, Edit, Source, cut, heading_level, item_end, locate, section_end
from ratchet.mutate.source import shorten as _s

# A line of an output template in a code block that names a field: "Total: ...", "- owner:", '"status":'.
_TEMPLATE_FIELD = re.compile(r"^\s*(?:[-*]\s+)?(?:\*\*)?\"?([A-Za-z][\w ()/-]{0,40}?)\"?(?:\*\*)?\s*:")
# An inline list of output parts after a colon: "A document with these sections: Summary, Impact, ...".
_LISTED = re.compile(r":\s+(.+?)\.?$", re.S)


def _cls(instruction: Instruction) -> MutantClass:
    return "R2" if instruction.output else "R1"


def _item_lines(source: Source, instruction: Instruction) -> tuple[int, int] | None:
    index = instruction.line - 1
    if not LIST_ITEM.match(source.lines[index]):
        return None
    return index, item_end(source.lines, index)


def delete_items(source: Source, *, ordered: bool) -> list[Edit]:
    """delete-step (a numbered item) or delete-bullet (any other item) outside the output: R1."""
    operator, noun = ("delete-step", "step") if ordered else ("delete-bullet", "bullet")
    edits: list[Edit] = []
    for item in source.instructions:
        if item.kind != "item" or not item.item_start or item.output or item.ordered != ordered:
            continue
        extent = _item_lines(source, item)
        if extent is None:
            continue
        where = f" {item.step.removeprefix('step ')}" if ordered and item.step else ""
        what = f"deleted {noun}{where} {_s(item.text)!r}"
        edits.append(Edit(operator, "R1", item.line, what, source.without(*extent)))
    return edits


def delete_sentences(source: Source) -> list[Edit]:
    """delete-sentence: one sentence of a paragraph, or a later sentence of a list item (R2 in the output)."""
    edits: list[Edit] = []
    for sentence in source.instructions:
        if sentence.kind not in ("sentence", "item") or sentence.after_close:
            continue
        if sentence.kind == "item" and sentence.item_start:
            continue  # the whole item is delete-step / delete-bullet / drop-field
        span = locate(source, sentence)
        if span is None:
            continue
        what = f"deleted the sentence {_s(sentence.text)!r}"
        edits.append(Edit("delete-sentence", _cls(sentence), sentence.line, what, cut(source.text, *span)))
    return edits


def delete_sections(source: Source) -> list[Edit]:
    """delete-section: a heading (below the title) and everything under it; R2 for an output section."""
    edits: list[Edit] = []
    for heading in source.instructions:
        index = heading.line - 1
        if heading.kind != "heading" or heading_level(source.lines[index]) < 2:
            continue
        cls: MutantClass = "R2" if heading.output or OUTPUT_HEADING.search(heading.text) else "R1"
        what = f"deleted the section {heading.text!r}"
        edits.append(Edit("delete-section", cls, heading.line, what, source.without(index, section_end(source, index))))
    return edits


def drop_headings(source: Source) -> list[Edit]:
    """drop-heading: an output sub-heading, or a heading of an output template in a code block (R2)."""
    edits: list[Edit] = []
    for found in source.instructions:
        if not found.output:
            continue
        if found.kind == "heading":
            index = found.line - 1
            edits.append(
                Edit(
                    "drop-heading",
                    "R2",
                    found.line,
                    f"dropped the output heading {found.text!r}",
                    source.without(index, index + 1),
                )
            )
        elif found.kind == "code":
            for line_no in found.code_lines:
                match = HEADING.match(source.lines[line_no - 1].strip())
                if match:
                    what = f"dropped the heading {(match.group(2) or '')!r} of the output template"
                    edits.append(Edit("drop-heading", "R2", line_no, what, source.without(line_no - 1, line_no)))
    return edits


def drop_fields(source: Source) -> list[Edit]:
    """drop-field: an output list item, table row, template field line, or one part of an inline list (R2)."""
    edits: list[Edit] = []
    for found in source.instructions:
        if not found.output:
            continue
        if found.kind == "item" and found.item_start and (extent := _item_lines(source, found)):
            what = f"dropped the output field {_s(found.text)!r}"
            edits.append(Edit("drop-field", "R2", found.line, what, source.without(*extent)))
        elif found.kind == "row" and found.header and found.text != " | ".join(found.header):
            index = found.line - 1
            what = f"dropped the output row {_s(found.text)!r}"
            edits.append(Edit("drop-field", "R2", found.line, what, source.without(index, index + 1)))
        elif found.kind == "code":
            for line_no in found.code_lines:
                match = _TEMPLATE_FIELD.match(source.lines[line_no - 1])
                if match and not HEADING.match(source.lines[line_no - 1].strip()):
                    what = f"dropped the field {match.group(1).strip()!r} of the output template"
                    edits.append(Edit("drop-field", "R2", line_no, what, source.without(line_no - 1, line_no)))
        if found.kind in ("sentence", "item"):
            edits.extend(_listed_parts(source, found))
    return edits


def _listed_parts(source: Source, found: Instruction) -> list[Edit]:
    """One edit per part of "...: A, B, C and D." (three parts or more, each short): that part removed."""
    listed = _LISTED.search(found.text)
    if listed is None or "`" in listed.group(1):
        return []
    parts = [p.strip() for p in re.split(r",\s*|\s+and\s+", listed.group(1)) if p.strip()]
    if len(parts) < 3 or any(len(p) > 40 or len(p.split()) > 5 for p in parts):
        return []
    span = locate(source, found)
    if span is None:
        return []
    raw = source.text[span[0] : span[1]]
    tail = raw.find(":")
    edits: list[Edit] = []
    for position, part in enumerate(parts):
        words = r"\s+".join(re.escape(w) for w in part.split())
        # The part and the separator after it; the last part takes the separator before it instead.
        pattern = rf"{words}(?:,\s*|\s+and\s+)" if position < len(parts) - 1 else rf"(?:,\s*|\s+and\s+){words}"
        match = re.compile(pattern).search(raw, tail)
        if match is None:
            continue
        start, end = span[0] + match.start(), span[0] + match.end()
        new = source.text[:start] + source.text[end:]
        what = f"dropped {part!r} from the output parts listed in {_s(found.text, 40)!r}"
        edits.append(Edit("drop-field", "R2", found.line, what, new))
    return edits
