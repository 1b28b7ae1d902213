"""The body of a SKILL.md read line by line: headings, paragraphs split into sentences, list items with their
step, table rows, code blocks, and the line that closes the skill block."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ratchet.diff.instructions.instruction import Instruction, InstructionKind
from ratchet.diff.instructions.sentences import split_sentences
from ratchet.diff.lexicon.sections import CLOSING_LINE, OUTPUT_HEADING, OUTPUT_LEAD_IN

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_LIST = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(\s+|$)(.*)$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_HRULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_QUOTE = re.compile(r"^ {0,3}>\s?")
_COMMENT_ONLY = re.compile(r"^<!--.*-->$", re.S)


@dataclass
class _ListLevel:
    indent: int
    content: int
    ordered: bool
    number: str


@dataclass
class _Paragraph:
    parts: list[tuple[int, str]] = field(default_factory=list)
    in_list: bool = False
    step: str | None = None
    ordered: bool = False
    item_start: bool = False


class Body:
    """One pass over the body's lines; `read` returns its instructions."""

    def __init__(self, origins: list[int]) -> None:
        self.origins = origins
        self.found: list[Instruction] = []
        self.headings: list[tuple[int, str]] = []
        self.lists: list[_ListLevel] = []
        self.paragraph: _Paragraph | None = None
        self.after_close = False
        self.lead_in_output = False

    def read(self, lines: list[str]) -> list[Instruction]:
        index = 0
        while index < len(lines):
            index = self._line(lines, index)
        self._flush()
        return self.found

    # -- context

    @property
    def _section(self) -> str | None:
        return self.headings[-1][1] if self.headings else None

    @property
    def _output(self) -> bool:
        # A level-1 heading is the skill's title ("# Expense report"), not a section of it.
        return any(level > 1 and OUTPUT_HEADING.search(text) for level, text in self.headings) or self.lead_in_output

    def _add(
        self,
        kind: InstructionKind,
        text: str,
        line: int,
        *,
        step: str | None = None,
        ordered: bool = False,
        item_start: bool = False,
        header: tuple[str, ...] = (),
        code_lines: tuple[int, ...] = (),
    ) -> None:
        self.found.append(
            Instruction(
                kind=kind,
                text=text,
                line=line,
                section=self._section,
                step=step,
                ordered=ordered,
                output=self._output,
                item_start=item_start,
                after_close=self.after_close,
                header=header,
                code_lines=code_lines,
            )
        )

    def _step(self) -> tuple[str | None, bool]:
        numbers = [level.number for level in self.lists if level.ordered]
        if not numbers:
            return None, False
        return "step " + ".".join(numbers), bool(self.lists and self.lists[-1].ordered)

    # -- one line (or block) at a time; returns the next line's index

    def _line(self, lines: list[str], index: int) -> int:
        raw = lines[index]
        line_no = self.origins[index]
        line = _QUOTE.sub("", raw) if _QUOTE.match(raw) else raw
        if not line.strip():
            self._flush()
            return index + 1
        fence = _FENCE.match(line)
        if fence is not None:
            self._flush()
            return self._code(lines, index, fence)
        if CLOSING_LINE.match(line):
            self._flush()
            self.after_close = True
            self._add("delimiter", line.strip(), line_no)
            return index + 1
        heading = _HEADING.match(line)
        if heading is not None:
            self._flush()
            self.lists.clear()
            level, text = len(heading.group(1)), " ".join((heading.group(2) or "").split())
            was_output = self._output
            while self.headings and self.headings[-1][0] >= level:
                self.headings.pop()
            self.lead_in_output = False
            self.found.append(
                Instruction(
                    kind="heading",
                    text=text,
                    line=line_no,
                    section=self._section,
                    output=was_output and self._output_parent(level),
                    item_start=True,
                    after_close=self.after_close,
                )
            )
            self.headings.append((level, text))
            return index + 1
        if _HRULE.match(line):
            self._flush()
            return index + 1
        if self._starts_table(lines, index):
            self._flush()
            return self._table(lines, index)
        item = _LIST.match(line)
        if item is not None:
            self._flush()
            self._list_item(item, line_no)
            return index + 1
        indent = len(line) - len(line.lstrip(" "))
        if self.paragraph is None:
            if self.lists and indent >= self.lists[-1].content - 1 and indent > 0:
                step, ordered = self._step()
                self.paragraph = _Paragraph(in_list=True, step=step, ordered=ordered)
            else:
                self.lists.clear()
                self.paragraph = _Paragraph()
        self.paragraph.parts.append((line_no, line.strip()))
        return index + 1

    def _output_parent(self, level: int) -> bool:
        """A sub-heading is an output element when a heading above it opens an output section."""
        return any(OUTPUT_HEADING.search(text) for lvl, text in self.headings if 1 < lvl < level)

    def _list_item(self, item: re.Match[str], line_no: int) -> None:
        indent, marker, content = len(item.group(1)), item.group(2), item.group(4)
        ordered = marker[0].isdigit()
        while self.lists and self.lists[-1].indent > indent:
            self.lists.pop()
        if self.lists and self.lists[-1].indent == indent:
            self.lists.pop()
        gap = len(item.group(3)) if item.group(3) else 1
        self.lists.append(
            _ListLevel(
                indent=indent,
                content=indent + len(marker) + gap,
                ordered=ordered,
                number=marker.rstrip(".)") if ordered else "",
            )
        )
        step, in_ordered = self._step()
        self.paragraph = _Paragraph(in_list=True, step=step, ordered=in_ordered, item_start=True)
        if content.strip():
            self.paragraph.parts.append((line_no, content.strip()))

    def _code(self, lines: list[str], index: int, fence: re.Match[str]) -> int:
        indent, marker, info = len(fence.group(1)), fence.group(2), fence.group(3).strip()
        start = self.origins[index]
        body: list[str] = []
        end = index + 1
        while end < len(lines):
            close = _FENCE.match(lines[end])
            if (
                close is not None
                and close.group(2)[0] == marker[0]
                and len(close.group(2)) >= len(marker)
                and not close.group(3).strip()
            ):
                break
            body.append(lines[end][indent:] if lines[end][:indent].strip() == "" else lines[end])
            end += 1
        kept = [(self.origins[index + 1 + offset], line.rstrip()) for offset, line in enumerate(body) if line.strip()]
        margin = min((len(line) - len(line.lstrip()) for _, line in kept), default=0)
        code = "\n".join(line[margin:] for _, line in kept)
        step, ordered = self._step() if self.lists and indent > 0 else (None, False)
        self._add(
            "code",
            f"{info}\n{code}" if info else code,
            start,
            step=step,
            ordered=ordered,
            code_lines=tuple(line_no for line_no, _ in kept),
        )
        return end + 1

    def _starts_table(self, lines: list[str], index: int) -> bool:
        line = lines[index].strip()
        if line.startswith("|") and line.count("|") >= 2:
            return True
        return (
            "|" in line
            and index + 1 < len(lines)
            and bool(_TABLE_SEP.match(lines[index + 1]))
            and "-" in lines[index + 1]
        )

    def _table(self, lines: list[str], index: int) -> int:
        header: tuple[str, ...] = ()
        first = True
        while index < len(lines) and lines[index].strip() and "|" in lines[index]:
            raw = lines[index]
            if _TABLE_SEP.match(raw) and "-" in raw:
                index += 1
                continue
            cells = tuple(" ".join(cell.split()) for cell in raw.strip().strip("|").split("|"))
            if first:
                header = cells
            self._add("row", " | ".join(cells), self.origins[index], item_start=True, header=header)
            first = False
            index += 1
        return index

    def _flush(self) -> None:
        paragraph, self.paragraph = self.paragraph, None
        if paragraph is None or not paragraph.parts:
            return
        joined, starts = "", []
        for line_no, part in paragraph.parts:
            starts.append((len(joined) + (1 if joined else 0), line_no))
            joined = f"{joined} {part}" if joined else part
        kind: InstructionKind = "item" if paragraph.in_list else "sentence"
        sentences = split_sentences(joined)
        for position, (offset, sentence) in enumerate(sentences):
            line_no = max((line for start, line in starts if start <= offset), default=starts[0][1])
            self._add(
                "comment" if _COMMENT_ONLY.match(sentence) else kind,
                sentence,
                line_no,
                step=paragraph.step,
                ordered=paragraph.ordered,
                item_start=paragraph.item_start and position == 0,
            )
        if not paragraph.in_list:
            # "Reply with these fields:" opens an output list that ends with the next heading.
            last = sentences[-1][1]
            self.lead_in_output = last.endswith(":") and bool(OUTPUT_LEAD_IN.search(last))
