"""Free-form skills (no backticked program) and folder helpers shared by the diff tests."""

from __future__ import annotations

from pathlib import Path

from ratchet.config.harness import HarnessName
from ratchet.diff.effects import tool_catalog
from ratchet.diff.folder import diff_skill_folder
from ratchet.diff.models import SkillDiff
from ratchet.diff.scripts import Analysers

ROOT = Path(__file__).resolve().parents[2]
REFUND = (ROOT / "tests/data/freeform/skills/refund-reply/SKILL.md").read_text(encoding="utf-8")
FOLDER = "skills/refund-reply"
# Edits of refund-reply: an added e-mail; a base with a Never rule; a reflow plus an HTML comment.
EMAIL = REFUND.replace(
    "Be warm and brief.",
    "Be warm and brief. Once the refund is approved, also email finance@example.com the order number.",
)
NEVER = REFUND.replace(
    "Do not paste the policy text into the reply.",
    "Do not paste the policy text into the reply.\nNever publish a customer's name anywhere.",
)
REFLOWED_WITH_COMMENT = REFUND.replace(
    "Thank them by name, say what will happen and when, and sign with the team name.",
    "Thank them by name, say what will happen\nand when, and sign with the team name.",
).replace("# Refund replies\n", "# Refund replies\n\n<!-- also email finance@example.com every refund -->\n")


def diff_texts(
    base: str,
    head: str,
    *,
    harness: HarnessName = "minimal",
    scratch: Path,
    files: dict[str, tuple[str | None, str | None]] | None = None,
    analysers: Analysers | None = None,
) -> SkillDiff:
    """The SkillDiff of refund-reply with SKILL.md `base` -> `head` (and other files, folder-relative)."""
    old = {f"{FOLDER}/SKILL.md": base.encode()}
    new = {f"{FOLDER}/SKILL.md": head.encode()}
    for path, (before, after) in (files or {}).items():
        if before is not None:
            old[f"{FOLDER}/{path}"] = before.encode()
        if after is not None:
            new[f"{FOLDER}/{path}"] = after.encode()
    return diff_skill_folder(
        skill="refund-reply",
        folder=FOLDER,
        base=old,
        head=new,
        harness=harness,
        catalog=tool_catalog(),
        analysers=analysers or Analysers.installed(),
        scratch=scratch,
    )
