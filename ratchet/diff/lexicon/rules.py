"""Rules: the markers of a rule, strong and soft, by family, and the hedges that loosen one."""

from __future__ import annotations

from typing import Literal

CONTRACTIONS: tuple[tuple[str, str], ...] = (
    ("can't", "cannot"),
    ("won't", "will not"),
    ("shan't", "shall not"),
    ("n't", " not"),
)
"""Expanded before reading rules, so "Don't" and "Do not" are one marker (apostrophes normalised to ')."""

Family = Literal["prohibition", "requirement", "restriction"]

STRONG_RULES: tuple[tuple[str, Family], ...] = (
    ("never", "prohibition"),
    ("must not", "prohibition"),
    ("do not", "prohibition"),
    ("cannot", "prohibition"),
    ("may not", "prohibition"),
    ("shall not", "prohibition"),
    ("under no circumstances", "prohibition"),
    ("not allowed", "prohibition"),
    ("forbidden", "prohibition"),
    ("prohibited", "prohibition"),
    ("refuse to", "prohibition"),
    ("no exceptions", "prohibition"),
    ("always", "requirement"),
    ("must", "requirement"),
    ("have to", "requirement"),
    ("has to", "requirement"),
    ("required", "requirement"),
    ("make sure", "requirement"),
    ("ensure", "requirement"),
    ("mandatory", "requirement"),
    ("need to", "requirement"),
    ("needs to", "requirement"),
    ("only", "restriction"),
    ("exclusively", "restriction"),
    ("solely", "restriction"),
    ("nothing but", "restriction"),
    ("no more than", "restriction"),
    ("at most", "restriction"),
)
"""Rule markers, strongest readings: what a reviewer means by "a rule" (never / must not / only / always / do not)."""

SOFT_RULES: tuple[tuple[str, Family], ...] = (
    ("should not", "prohibition"),
    ("avoid", "prohibition"),
    ("try not to", "prohibition"),
    ("prefer not to", "prohibition"),
    ("ideally not", "prohibition"),
    ("should", "requirement"),
    ("try to", "requirement"),
    ("ideally", "requirement"),
    ("prefer", "requirement"),
    ("consider", "requirement"),
    ("usually", "requirement"),
    ("generally", "requirement"),
    ("mostly", "restriction"),
    ("mainly", "restriction"),
    ("preferably", "restriction"),
)
"""The same families, softened: a rule whose strong marker became one of these is weakened."""

HEDGES: tuple[str, ...] = (
    "if possible",
    "where possible",
    "when possible",
    "if you can",
    "when you have time",
    "if time allows",
    "unless asked otherwise",
    "unless told otherwise",
    "as appropriate",
    "if needed",
    "if necessary",
    "at your discretion",
    "optionally",
    "optional",
    "feel free",
    "where practical",
    "if convenient",
    "when convenient",
    "as a rule of thumb",
)
"""Phrases that loosen whatever rule they sit in ("never X" -> "never X if possible")."""
