"""The rule operators over a free-form skill, all R1 (the skill's procedure no longer holds):

    negate-rule     a strong rule marker turned around: never <-> always, must not -> must, must -> must not,
                    do not / don't -> (gone), cannot -> can, may not -> may, should not -> should
    drop-only       "only" removed ("Only mention incidents" -> "Mention incidents")
    drop-condition  a condition clause removed ("If X, do Y." -> "Do Y."; "Do Y unless X." -> "Do Y.")

The markers are the behavioural diff's (ratchet.diff.lexicon.rules STRONG_RULES, with their contractions)
and the condition words its lexicon's (ratchet.diff.lexicon.conditions); text inside backtick spans is
never touched. A rule inside an HTML comment is edited like any other line and then dropped as
equivalent, since a skill's substance is blind to comments.
"""

from __future__ import annotations

import re

from ratchet.diff.lexicon.conditions import CONDITION_WORDS
from ratchet.diff.lexicon.rules import CONTRACTIONS, SOFT_RULES, STRONG_RULES
from ratchet.mutate.source import Edit, Source, capitalised, locate, outside_spans
from ratchet.mutate.source import shorten as _s

# Marker -> its opposite ("" deletes it). Only markers the lexicon knows as rules are turned.
_OPPOSITE = {
    "never": "always",
    "always": "never",
    "must not": "must",
    "must": "must not",
    "do not": "",
    "cannot": "can",
    "may not": "may",
    "shall not": "shall",
    "should not": "should",
    "at most": "at least",
    "no more than": "at least",
}
_MARKERS = {marker for marker, _ in (*STRONG_RULES, *SOFT_RULES)}
# Clause openers among the lexicon's condition words (comparatives like "more" are not clauses).
_OPENERS = tuple(w for w in ("if", "unless", "when", "whenever", "once", "provided", "except") if w in CONDITION_WORDS)


def _forms(marker: str) -> list[str]:
    """The marker as written and its contracted spellings ("do not" -> "don't", "cannot" -> "can't")."""
    forms = [marker]
    for short, long in CONTRACTIONS:
        if long == marker:
            forms.append(short)
        elif short == "n't" and marker.endswith(long) and marker != "cannot":
            forms.append(marker[: -len(long)] + "n't")
    return forms


def _pattern(marker: str) -> re.Pattern[str]:
    forms = "|".join(re.escape(f).replace("'", "['\u2019]").replace(r"\ ", r"\s+") for f in _forms(marker))
    after = r"(?!\s+not\b)" if marker in ("must", "may", "shall", "should") else ""
    trailing = r"\s*" if _OPPOSITE[marker] == "" else ""
    return re.compile(rf"\b(?:{forms})\b{after}{trailing}", re.I)


_NEGATE = tuple((marker, _pattern(marker)) for marker in _OPPOSITE if marker in _MARKERS)
_ONLY = (re.compile(r"\bonly\s+", re.I), re.compile(r"\s+only\b(?=[.,;:!?]|$)", re.I))
_OPENER = "|".join(_OPENERS)
_LEADING = re.compile(rf"^(?:only\s+)?(?:{_OPENER})\s+[^.;:!?`]*?,\s+", re.I)
_TRAILING = re.compile(rf"(?:,\s*|\s+)(?:only\s+)?(?:{_OPENER})\s+\w+\s+\w[^.;!?`]*?(?=[.;!?]*$)", re.I)


def _swap(line: str, match: re.Match[str], new: str) -> str:
    """The line with the match replaced by `new`, in the match's case; a deleted marker capitalises what follows."""
    old = match.group(0)
    if new and old[:1].isupper():
        new = new[0].upper() + new[1:]
    before, after = line[: match.start()], line[match.end() :]
    if not new and old[:1].isupper():
        after = capitalised(after)
    return before + new + after


def negate_rules(source: Source) -> list[Edit]:
    edits: list[Edit] = []
    for index in source.prose_lines():
        line = source.lines[index]
        found = sorted(
            ((m, marker) for marker, pattern in _NEGATE for m in pattern.finditer(line)), key=lambda f: f[0].start()
        )
        for match, marker in found:
            if not outside_spans(line, match.start()):
                continue
            new = _swap(line, match, _OPPOSITE[marker])
            marked = match.group(0).strip()
            turned = f"{marked!r} -> {_OPPOSITE[marker]!r}" if _OPPOSITE[marker] else f"{marked!r} removed"
            what = f"negated a rule ({turned}) in {_s(line.strip())!r}"
            edits.append(Edit("negate-rule", "R1", index + 1, what, source.replaced(index, new)))
    return edits


def drop_only(source: Source) -> list[Edit]:
    edits: list[Edit] = []
    for index in source.prose_lines():
        line = source.lines[index]
        for match in sorted((m for p in _ONLY for m in p.finditer(line)), key=lambda m: m.start()):
            if not outside_spans(line, match.start() + len(match.group(0)) - len(match.group(0).lstrip())):
                continue
            new = _swap(line, match, "")
            edits.append(
                Edit(
                    "drop-only",
                    "R1",
                    index + 1,
                    f"removed 'only' from {_s(line.strip())!r}",
                    source.replaced(index, new),
                )
            )
    return edits


def drop_conditions(source: Source) -> list[Edit]:
    edits: list[Edit] = []
    for found in source.instructions:
        if found.kind not in ("sentence", "item"):
            continue
        span = locate(source, found)
        if span is None:
            continue
        raw = source.text[span[0] : span[1]]
        for pattern in (_LEADING, _TRAILING):
            match = pattern.search(raw)
            if match is None:
                continue
            kept = raw[: match.start()] + raw[match.end() :]
            if pattern is _LEADING:
                kept = capitalised(kept)
            if len(kept.split()) < 3:
                continue
            clause = " ".join(match.group(0).strip(" ,").split())
            new = source.text[: span[0]] + kept + source.text[span[1] :]
            what = f"removed the condition {_s(clause, 50)!r}"
            edits.append(Edit("drop-condition", "R1", found.line, what, new))
    return edits
