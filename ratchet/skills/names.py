"""Skill identity: two spellings that normalize alike are one skill.

skills-ref reads a name, and the folder it must match, through NFKC, so `fx-expense-converter`
spelled with a fullwidth f (U+FF46) is `fx-expense-converter` to it. Ratchet compares names the
same way everywhere it asks "is this the same skill?" (select, Level 0 routing, the loaded skill
set); a raw string comparison let a look-alike rename hide a skill from its own goldens. Whether
such a spelling is a valid name is the validator's call (ratchet/skills/rules.py: it is not).
"""

from __future__ import annotations

import unicodedata


def skill_key(name: str) -> str:
    """The identity of a skill name (or skill folder name): its NFKC normal form."""
    return unicodedata.normalize("NFKC", name)


def optional_skill_key(name: str | None) -> str | None:
    """skill_key for a name that may be absent (a trace where no skill fired)."""
    return None if name is None else skill_key(name)


def is_lookalike(name: str) -> bool:
    """True when NFKC changes more than NFC does: compatibility characters (fullwidth letters,
    ligatures, superscripts ...) that read as a different, usually ASCII, spelling.

    Canonical variants (`cafe\u0301` for `café`, as macOS file systems write folder names) are
    the same text in another encoding and are not look-alikes.
    """
    return unicodedata.normalize("NFC", name) != skill_key(name)
