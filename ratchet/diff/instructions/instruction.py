"""One instruction: what the model is told, the line it starts on, and the part of the skill it sits in."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

InstructionKind = Literal["field", "heading", "sentence", "item", "row", "code", "comment", "delimiter"]


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
