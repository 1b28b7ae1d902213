"""The behavioural diff as text: one line per finding, `path:line: message`, as editors and CI annotators read it."""

from __future__ import annotations

from ratchet.diff.models import EditDiff, SkillDiff

NO_CHANGE = "no change in instructions"


def skill_lines(skill: SkillDiff) -> list[str]:
    """One skill's lines: its findings, or why a cosmetic edit changes nothing the model reads."""
    if skill.cosmetic:
        return [f"{skill.folder}: {NO_CHANGE} ({skill.cosmetic_reason})"]
    return [finding.render() for finding in skill.findings] or [f"{skill.folder}: {NO_CHANGE}"]


def diff_text(diff: EditDiff) -> str:
    """`ratchet diff`'s text output."""
    if not diff.skills:
        return "no skill changed\n"
    return "".join(f"{line}\n" for skill in diff.skills for line in skill_lines(skill))
