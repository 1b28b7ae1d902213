"""Conditions: the prose words and the code operators that state when something happens."""

from __future__ import annotations

CONDITION_WORDS: frozenset[str] = frozenset(
    {
        "if",
        "unless",
        "when",
        "whenever",
        "until",
        "before",
        "after",
        "while",
        "except",
        "otherwise",
        "provided",
        "once",
        "or",
        "more",
        "less",
        "fewer",
        "greater",
        "above",
        "below",
        "over",
        "under",
        "exceeds",
        "exceed",
        "least",
        "most",
        "within",
        "earlier",
        "later",
        "between",
        "without",
    }
)
"""Prose words that state when something happens (a change in their multiset is a changed condition)."""

CODE_OPERATORS: tuple[str, ...] = ("==", "!=", ">=", "<=", ">", "<", " and ", " or ", "not ", " in ", " is ")
"""Comparison and boolean operators read inside code spans and code blocks."""
