"""What the behavioural diff says about an edit: findings per skill folder, as data.

A `SkillDiff` is one changed skill folder; an `EditDiff` the whole edit (`ratchet diff --json`).
Both are written to disk (in a verdict and in JSON output), so they carry a `schema_version`.
Models only: no stage is imported here.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from ratchet.config.harness import HarnessName

DIFF_SCHEMA_VERSION = 1


class DiffKind(StrEnum):
    """What one finding says changed. Where a change has a specific kind, it is reported as that
    kind alone; `instruction_*` name a change no specific kind describes."""

    INSTRUCTION_ADDED = "instruction_added"
    INSTRUCTION_REMOVED = "instruction_removed"
    INSTRUCTION_CHANGED = "instruction_changed"
    ORDER_CHANGED = "order_changed"
    ACTION_ADDED = "action_added"
    ACTION_REMOVED = "action_removed"
    RULE_REMOVED = "rule_removed"
    RULE_WEAKENED = "rule_weakened"
    CONSTANT_CHANGED = "constant_changed"
    CONDITION_CHANGED = "condition_changed"
    OUTPUT_REMOVED = "output_removed"
    OUTPUT_RENAMED = "output_renamed"
    DESCRIPTION_BROADENED = "description_broadened"
    DESCRIPTION_NARROWED = "description_narrowed"
    AFTER_SKILL_CLOSE = "after_skill_close"
    SCRIPT_FINDING = "script_finding"
    SCRIPT_COMMAND = "script_command"
    SCRIPT_NETWORK = "script_network"
    SCRIPT_DELETION = "script_deletion"
    ANALYSER_UNAVAILABLE = "analyser_unavailable"
    FILE_ADDED = "file_added"
    FILE_REMOVED = "file_removed"
    FILE_CHANGED = "file_changed"


SCRIPT_KINDS: frozenset[DiffKind] = frozenset(
    {
        DiffKind.SCRIPT_FINDING,
        DiffKind.SCRIPT_COMMAND,
        DiffKind.SCRIPT_NETWORK,
        DiffKind.SCRIPT_DELETION,
        DiffKind.ANALYSER_UNAVAILABLE,
    }
)
"""What a script edit can add: an analyser's finding, a new command, network call or deletion, or no analysis."""

FLOOR_KINDS: frozenset[DiffKind] = frozenset(
    {
        DiffKind.ACTION_ADDED,
        DiffKind.ACTION_REMOVED,
        DiffKind.RULE_REMOVED,
        DiffKind.RULE_WEAKENED,
        DiffKind.AFTER_SKILL_CLOSE,
        *SCRIPT_KINDS,
    }
)
"""Kinds the policy acts on when no replay exercised them (an added or removed side effect, a removed or weakened rule,
content hidden after the skill block, a dangerous or unanalysed script): WARN by default, BLOCK under
`static: block` (docs/diff.md)."""

Side = Literal["base", "head"]
SkillStatus = Literal["changed", "cosmetic", "added", "removed"]


class DiffFinding(BaseModel):
    """One change the diff names, located in the file it is in."""

    kind: DiffKind
    path: str = Field(description="Repo path of the file (SKILL.md, a reference, a script).")
    line: int | None = Field(default=None, description="1-based line on `side`; None for a whole file.")
    side: Side = Field(default="head", description="Which revision `line` counts in: base for what was removed.")
    where: str | None = Field(
        default=None,
        description="Where in the skill a reader finds it: 'step 3', 'frontmatter description', a section heading.",
    )
    old: str | None = Field(default=None, description="What it was: the value, rule, field or instruction text.")
    new: str | None = Field(default=None, description="What it became.")
    action: str | None = Field(default=None, description="The action, tool or command named (send, email_send, rm).")
    effect: str | None = Field(default=None, description="Its effect: write, send, spend, destroy, execute, network.")
    target: str | None = Field(
        default=None,
        description="Whom or what it acts on, when the text names it (an e-mail address, a URL, a channel).",
    )
    analyser: str | None = Field(
        default=None, description="The analyser and rule behind a script finding (bandit B605, shellcheck SC2115)."
    )
    message: str = Field(description="The finding as one line, without its location.")

    def render(self) -> str:
        """`path:line: message`, the form editors and CI annotators parse."""
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.message}"

    @property
    def floors(self) -> bool:
        """Whether the static policy acts on this kind (FLOOR_KINDS)."""
        return self.kind in FLOOR_KINDS


class SkillDiff(BaseModel):
    """The behavioural diff of one skill folder between two revisions, read for one harness."""

    schema_version: int = DIFF_SCHEMA_VERSION
    skill: str = Field(description="The skill's name (its folder's name).")
    folder: str = Field(description="Repo path of the skill folder.")
    harness: HarnessName = Field(
        description="The harness whose view was compared: the minimal runner does "
        "not send HTML comments; Claude Code, Codex and command send SKILL.md as written."
    )
    status: SkillStatus = Field(description="changed; cosmetic (files differ, instructions do not); added; removed.")
    findings: list[DiffFinding] = Field(default_factory=list)
    cosmetic_reason: str | None = Field(
        default=None,
        description="Why a cosmetic edit changes nothing the "
        "model reads (whitespace, line breaks, comments the harness strips ...).",
    )

    @property
    def cosmetic(self) -> bool:
        return self.status == "cosmetic"

    def floor_findings(self) -> list[DiffFinding]:
        """The findings the static policy acts on, in order."""
        return [finding for finding in self.findings if finding.floors]


class EditDiff(BaseModel):
    """`ratchet diff`: the behavioural diff of every changed skill folder of an edit."""

    schema_version: int = DIFF_SCHEMA_VERSION
    base: str = Field(description="The base revision's commit.")
    head: str = Field(description="The head revision's commit, or <index>.")
    harness: HarnessName
    skills: list[SkillDiff] = Field(default_factory=list, description="One per changed skill, by name.")

    def to_json(self) -> str:
        """Byte-stable JSON: the same edit gives the same bytes."""
        return self.model_dump_json(indent=2) + "\n"
