"""A SKILL.md read as instructions: frontmatter fields, headings, sentences, list items, table rows, code blocks.

Why instructions and not lines: a reflowed paragraph, re-padded table or renumbered list changes
lines but not one thing the model is told. Paragraphs and list items are joined across line breaks
and split into sentences; table rows into cells; code blocks are kept whole (dedented, blank lines
and trailing spaces dropped). Every instruction keeps the 1-based line it starts on, the section
heading it sits under, its step ("step 3", "step 10.1") inside a numbered list, and whether it
follows a line that closes the skill block (`</skill>` and the tags in lexicon/sections.py CLOSING_TAGS).

Harness-aware: the minimal runner drops HTML comments before the model sees the body
(ratchet.agent.prompt.normalize_body, through ratchet.core.markup.drop_html_comments, whose scan
document.py reuses), so with `strips_comments` a comment is not an instruction; Claude Code, Codex and
command send SKILL.md as written, so there a comment is text the model reads.

    instruction  one instruction and where it sits (Instruction)
    document     a whole file: frontmatter keys, then the body as the harness sends it (read_instructions)
    body         the body, line by line: headings, paragraphs, list items, table rows, code blocks
    sentences    a paragraph split into sentences (split_sentences)
"""

from __future__ import annotations

from ratchet.diff.instructions.document import read_instructions
from ratchet.diff.instructions.instruction import Instruction, InstructionKind
from ratchet.diff.instructions.sentences import split_sentences

__all__ = ["Instruction", "InstructionKind", "read_instructions", "split_sentences"]
