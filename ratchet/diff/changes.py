"""How two versions of one instruction differ, in words: a weakened rule, a changed condition, changed
constants, a description's scope, the tools a frontmatter key allows. The classifier names the finding."""

from __future__ import annotations

from collections import Counter

from ratchet.diff.instructions import Instruction
from ratchet.diff.lexicon.scope import BROAD_WORDS, NARROW_WORDS, STOPWORDS
from ratchet.diff.models import DiffKind
from ratchet.diff.reading import conditions, constants, rules, words_of

SCOPE_FIELDS = frozenset({"description", "when_to_use"})
"""Frontmatter keys a harness routes on: a change there is read for scope (broader, narrower)."""
TOOL_FIELDS = frozenset({"allowed-tools"})


def rule_weakening(a: Instruction, b: Instruction) -> str | None:
    """How `b` weakens the rule `a` states ("'never' became 'avoid', adds 'if possible'"), or None."""
    old, new = rules(a), rules(b)
    if not old.is_rule:
        return None
    lost = [family for family in old.strong if family not in new.strong]
    hedged = [hedge for hedge in new.hedges if hedge not in old.hedges]
    if not lost and not hedged:
        return None
    parts = [
        f"{old.strong[family]!r} became {new.soft[family]!r}"
        if family in new.soft
        else f"{old.strong[family]!r} is gone"
        for family in lost
    ]
    parts += [f"adds {hedge!r}" for hedge in hedged]
    return ", ".join(parts)


def condition_change(a: Instruction, b: Instruction) -> str | None:
    """The condition words `b` drops or adds against `a` ("'before' became 'after'"), or None."""
    old, new = conditions(a), conditions(b)
    if old == new:
        return None
    gone, came = sorted((old - new).elements()), sorted((new - old).elements())
    if gone and came:
        return f"{' '.join(repr(x) for x in gone)} became {' '.join(repr(x) for x in came)}"
    if gone:
        return f"drops {' '.join(repr(x) for x in gone)}"
    return f"adds {' '.join(repr(x) for x in came)}"


def constant_changes(a: Instruction, b: Instruction, *, skip: set[str]) -> list[tuple[str | None, str | None]]:
    """(old, new) for each constant of `a` that `b` changes, (old, None) for one it drops, in `a`'s order;
    then (None, new) for each it adds. A value in `skip` is left out: another finding names it already."""
    old, new = Counter(constants(a)), Counter(constants(b))
    gone = [item for item in dict.fromkeys(constants(a)) if old[item] > new[item] and item[1] not in skip]
    came = [item for item in dict.fromkeys(constants(b)) if new[item] > old[item] and item[1] not in skip]
    changes: list[tuple[str | None, str | None]] = []
    for kind, value in gone:
        partner = next((item for item in came if item[0] == kind), None)
        if partner is not None:
            came.remove(partner)
        changes.append((value, partner[1] if partner is not None else None))
    changes += [(None, value) for _, value in came]
    return changes


def scope_change(a: Instruction, b: Instruction) -> tuple[DiffKind, str] | None:
    """Whether a routing key (SCOPE_FIELDS) now claims more or less, and the message saying how; None if neither."""
    old_words, new_words = words_of(a.text), words_of(b.text)
    old_terms, new_terms = _terms(old_words), _terms(new_words)
    added, dropped = sorted(new_terms - old_terms), sorted(old_terms - new_terms)
    broad = sorted((new_words & BROAD_WORDS) - old_words) + sorted((old_words & NARROW_WORDS) - new_words)
    narrow = sorted((new_words & NARROW_WORDS) - old_words) + sorted((old_words & BROAD_WORDS) - new_words)
    score = len(added) - len(dropped) + 3 * (len(broad) - len(narrow))
    if score == 0:
        return None
    kind = DiffKind.DESCRIPTION_BROADENED if score > 0 else DiffKind.DESCRIPTION_NARROWED
    terms = ", ".join(repr(t) for t in (added if score > 0 else dropped)[:8])
    more = len(added if score > 0 else dropped) - 8
    scope = ", ".join(repr(w) for w in (broad if score > 0 else narrow))
    detail = "; ".join(
        part
        for part in (
            f"{'adds' if score > 0 else 'drops'} {terms}{f' and {more} more' if more > 0 else ''}" if terms else "",
            f"{'widens' if score > 0 else 'narrows'} with {scope}" if scope else "",
        )
        if part
    )
    verb = "broadens" if score > 0 else "narrows"
    return kind, f"{verb} the {a.field_name}: {detail}"


def tool_names(text: str) -> set[str]:
    """Tool names of an allowed-tools value ("Read Grep Bash(git push:*)" -> Read, Grep, Bash)."""
    names = set()
    for token in text.replace(",", " ").split():
        name = token.split("(", 1)[0].strip()
        if name:
            names.add(name)
    return names


def _terms(words: set[str]) -> set[str]:
    """Content words of a description, plural and singular as one."""
    kept = {w for w in words if len(w) > 2 and w not in STOPWORDS and w not in BROAD_WORDS and w not in NARROW_WORDS}
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w for w in kept}
