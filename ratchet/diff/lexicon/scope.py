"""A description's scope: the words that widen or narrow what it claims, and those that carry no scope."""

from __future__ import annotations

BROAD_WORDS: frozenset[str] = frozenset(
    {
        "any",
        "anything",
        "all",
        "every",
        "everything",
        "whenever",
        "general",
        "other",
        "everyday",
        "whatever",
        "doubt",
        "misc",
        "miscellaneous",
        "broad",
        "generic",
    }
)
"""Words that widen what a description claims ("any other request", "whenever in doubt")."""

NARROW_WORDS: frozenset[str] = frozenset(
    {
        "only",
        "just",
        "exclusively",
        "solely",
        "explicitly",
        "specifically",
        "strictly",
        "never",
    }
)
"""Words that narrow it ("only for refunds", "only when asked explicitly")."""

STOPWORDS: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "with",
        "by",
        "at",
        "as",
        "is",
        "are",
        "be",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "from",
        "into",
        "when",
        "use",
        "used",
        "using",
        "asked",
        "ask",
        "asks",
        "about",
        "such",
        "also",
        "can",
        "will",
        "so",
        "if",
        "than",
        "then",
        "their",
        "them",
        "they",
        "who",
        "what",
        "which",
        "your",
        "you",
        "our",
        "we",
        "not",
        "no",
        "but",
        "it's",
        "e.g",
        "i.e",
        "etc",
        "like",
        "example",
        "handle",
        "handles",
        "skill",
        "well",
        "other",
    }
)
"""Words that carry no scope of their own in a description."""
