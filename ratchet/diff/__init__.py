"""The behavioural diff of a skill folder, without a model (docs/diff.md, docs/adr/0018-behavioural-diff.md).

    lexicon/      the words a finding rests on: side-effect verbs, commands, rule markers, scope words
    instructions/ SKILL.md read as instructions, for one harness's view
    align         base and head instructions paired: same, moved, changed, removed, added
    reading       what one instruction says: actions, rules, constants, conditions, output name
    changes       how two versions of one instruction differ: rule, condition, constants, scope, tools
    wording       how a finding's message quotes and names things
    classify      each real change named (DiffKind)
    scripts/      scripts diffed with Bandit, ShellCheck and a plain reading of added lines
    folder        one skill folder, every file by what it is -> SkillDiff
    edit          an edit read from git -> EditDiff (`ratchet diff`)
    measure       precision and recall per kind on labelled edits

A gate stage may import this package; it imports no gate stage. The verdict holds a SkillDiff per
changed skill, so ratchet.gate.models imports the models: the readers (git, the analysers, the
world's tools) are imported on first use, not with every verdict.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratchet.diff.models import DiffFinding, DiffKind, EditDiff, SkillDiff

if TYPE_CHECKING:
    from ratchet.diff.edit import diff_revisions
    from ratchet.diff.folder import diff_skill_folder

__all__ = ["DiffFinding", "DiffKind", "EditDiff", "SkillDiff", "diff_revisions", "diff_skill_folder"]


def __getattr__(name: str) -> object:
    if name == "diff_revisions":
        from ratchet.diff.edit import diff_revisions

        return diff_revisions
    if name == "diff_skill_folder":
        from ratchet.diff.folder import diff_skill_folder

        return diff_skill_folder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
