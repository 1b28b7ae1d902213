"""A SKILL.md read as instructions: frontmatter fields, headings, sentences, list items, table rows, code blocks.

Why instructions and not lines: a reflowed paragraph, re-padded table or renumbered list changes
lines but not one thing the model is told. Paragraphs and list items are joined across line breaks
and split into sentences; table rows into cells; code blocks are kept whole (dedented, blank lines
and trailing spaces dropped). Every instruction keeps the 1-based line it starts on, the section
heading it sits under, its step ("step 3", "step 10.1") inside a numbered list, and whether it
follows a line that closes the skill block (`</skill>` and the tags in lexicon.CLOSING_TAGS).

Harness-aware: the minimal runner drops HTML comments before the model sees the body
(ratchet.agent.prompt.normalize_body, through ratchet.markup.drop_html_comments, whose scan this
module reuses), so with `strips_comments` a comment is not an instruction; Claude Code, Codex and
command send SKILL.md as written, so there a comment is text the model reads.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Literal

import yaml

from ratchet.diff.lexicon import CLOSING_LINE, OUTPUT_HEADING, OUTPUT_LEAD_IN
from ratchet.markup import kept_outside_html_comments
from ratchet.yamlio import YamlLimitError, compose_yaml

InstructionKind = Literal["field", "heading", "sentence", "item", "row", "code", "comment", "delimiter"]

_FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$")
_LIST = re.compile(r"^( *)([-*+]|\d{1,9}[.)])(\s+|$)(.*)$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_HRULE = re.compile(r"^ {0,3}([-*_])(\s*\1){2,}\s*$")
_QUOTE = re.compile(r"^ {0,3}>\s?")
_COMMENT_ONLY = re.compile(r"^<!--.*-->$", re.S)
_ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "etc.", "vs.", "cf.", "mr.", "mrs.", "ms.", "dr.", "st.", "no.", "approx.", "incl.", "fig.", "al."}
)
_SENTENCE_STARTS = "`*_\"'([<\u201c\u2018#$@"


@dataclass(frozen=True)
class Instruction:
    """One thing the model is told, where it is, and in what part of the skill."""

    kind: InstructionKind
    text: str
    line: int
    section: str | None = None
    step: str | None = None
    ordered: bool = False
    output: bool = False
    item_start: bool = False
    after_close: bool = False
    field_name: str | None = None
    header: tuple[str, ...] = ()
    code_lines: tuple[int, ...] = ()
    """A code block's file line for each line of `text` after its info line (blank lines are not kept)."""

    @property
    def key(self) -> tuple[str, str]:
        """What two instructions must share to be the same instruction (position and layout aside)."""
        if self.kind == "field":
            return ("field", f"{self.field_name}\0{self.text}")
        if self.kind in ("heading", "code", "delimiter"):
            return (self.kind, self.text)
        return ("text", self.text)

    @property
    def where(self) -> str | None:
        """How a message names its place: the step, the frontmatter key, or the section."""
        if self.field_name is not None:
            return f"frontmatter {self.field_name}"
        if self.step is not None:
            return self.step
        return self.section


def read_instructions(text: str, *, strips_comments: bool) -> list[Instruction]:
    """Every instruction of a SKILL.md (or a reference .md: frontmatter optional), in order."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found: list[Instruction] = []
    body, body_line = text, 1
    lines = text.split("\n")
    if lines and lines[0].rstrip() == "---":
        closing = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
        if closing is not None:
            found.extend(_frontmatter("\n".join(lines[1:closing])))
            body, body_line = "\n".join(lines[closing + 1 :]), closing + 2
    sent, origins = _as_sent(body, body_line, strips_comments)
    found.extend(_Body(origins).read(sent.split("\n")))
    return found


# -- what the harness sends ----------------------------------------------------------------------


def _as_sent(body: str, first_line: int, strips_comments: bool) -> tuple[str, list[int]]:
    """The body as the harness sends it, and the original line of each of its lines.

    Without comments, exactly the text ratchet.markup.drop_html_comments keeps (the minimal
    runner's prompt), built from the same scan so the two cannot disagree on what a comment is.
    """
    spans = kept_outside_html_comments(body) if strips_comments else [(0, len(body))]
    newlines = [index for index, char in enumerate(body) if char == "\n"]
    # A newline at newlines[k] starts line first_line + k + 1 of the file.
    origins = [first_line + bisect.bisect_left(newlines, spans[0][0])]
    pieces: list[str] = []
    for start, end in spans:
        pieces.append(body[start:end])
        origins.extend(
            first_line + k + 1 for k in range(bisect.bisect_left(newlines, start), bisect.bisect_left(newlines, end))
        )
    return "".join(pieces), origins


# -- frontmatter ---------------------------------------------------------------------------------


def _frontmatter(yaml_text: str) -> list[Instruction]:
    """One instruction per frontmatter key (a mapping's keys as `key.sub`); raw lines when it is not YAML."""
    try:
        root = compose_yaml(yaml_text)
    except (yaml.YAMLError, YamlLimitError):
        root = None
    if not isinstance(root, yaml.MappingNode):
        return [
            Instruction(kind="field", text=" ".join(line.split()), line=index + 2, field_name="frontmatter")
            for index, line in enumerate(yaml_text.split("\n"))
            if line.strip()
        ]
    found: list[Instruction] = []
    for key, value in root.value:
        name = str(key.value) if isinstance(key, yaml.ScalarNode) else "?"
        line = key.start_mark.line + 2
        if isinstance(value, yaml.MappingNode):
            for sub_key, sub_value in value.value:
                sub = str(sub_key.value) if isinstance(sub_key, yaml.ScalarNode) else "?"
                found.append(
                    Instruction(
                        kind="field",
                        text=_flat(sub_value),
                        line=sub_key.start_mark.line + 2,
                        field_name=f"{name}.{sub}",
                    )
                )
        else:
            found.append(Instruction(kind="field", text=_flat(value), line=line, field_name=name))
    return found


def _flat(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return " ".join(str(node.value).split())
    if isinstance(node, yaml.SequenceNode):
        return ", ".join(_flat(item) for item in node.value)
    if isinstance(node, yaml.MappingNode):
        return "; ".join(f"{_flat(k)}: {_flat(v)}" for k, v in node.value)
    return ""


# -- the body ------------------------------------------------------------------------------------


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


class _Body:
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


def split_sentences(text: str) -> list[tuple[int, str]]:
    """(offset, sentence) of each sentence of a paragraph: split after . ! ? followed by a space and a
    capital, digit or opening mark, never inside a code span or an HTML comment, nor after an abbreviation;
    an HTML comment is a sentence of its own."""
    text = " ".join(text.split())
    found: list[tuple[int, str]] = []
    start = 0
    in_code = False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "`":
            in_code = not in_code
        elif text.startswith("<!--", index) and not in_code:
            close = text.find("-->", index + 4)
            if close >= 0:
                # A comment is a unit of its own: what a harness that sends it shows the model as one note.
                if text[start:index].strip():
                    found.append((start, text[start:index].strip()))
                found.append((index, text[index : close + 3]))
                start = index = close + 3
                while start < len(text) and text[start] == " ":
                    start += 1
                continue
        elif char in ".!?" and not in_code and _ends_sentence(text, start, index):
            end = index + 1
            while end < len(text) and text[end] in "\"')]\u201d\u2019*_":
                end += 1
            found.append((start, text[start:end].strip()))
            start = end + 1
            index = end
            continue
        index += 1
    if text[start:].strip():
        found.append((start, text[start:].strip()))
    return [(offset, sentence) for offset, sentence in found if sentence]


def _ends_sentence(text: str, start: int, index: int) -> bool:
    after = index + 1
    while after < len(text) and text[after] in "\"')]\u201d\u2019*_":
        after += 1
    if after + 1 >= len(text) or text[after] != " ":
        return False
    following = text[after + 1]
    if not (following.isupper() or following.isdigit() or following in _SENTENCE_STARTS):
        return False
    word = text[start : index + 1].rsplit(" ", 1)[-1].lower()
    return word not in _ABBREVIATIONS and not (len(word) == 2 and word[0].isalpha())  # an initial: "J. Smith"
