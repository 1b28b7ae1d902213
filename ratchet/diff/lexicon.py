"""The words the behavioural diff reads: side-effect verbs, commands, rule and condition markers, scope words.

Documented here, in one place, so a reviewer can see exactly what a finding rests on (docs/diff.md
prints these tables). Each is a plain reading of English and of common shell/SQL commands, written
from the issue's list (send, email, post, publish, delete, remove, pay, transfer, merge, push,
deploy ...), not fitted to any benchmark. Effects use the world's vocabulary (ratchet.trace.Effect:
write, send, spend, destroy) plus `execute` (runs a program) and `network` (reaches another host).
"""

from __future__ import annotations

import re
from typing import Literal

ActionEffect = Literal["write", "send", "spend", "destroy", "execute", "network"]

VERBS: dict[str, ActionEffect] = {
    # send: a message, a post or a file leaves for someone else; it cannot be taken back.
    "send": "send",
    "email": "send",
    "e-mail": "send",
    "mail": "send",
    "notify": "send",
    "message": "send",
    "post": "send",
    "publish": "send",
    "tweet": "send",
    "announce": "send",
    "broadcast": "send",
    "share": "send",
    "forward": "send",
    "invite": "send",
    "upload": "send",
    "ping": "send",
    "dm": "send",
    "cc": "send",
    "submit": "send",
    # destroy: something is gone afterwards.
    "delete": "destroy",
    "remove": "destroy",
    "erase": "destroy",
    "purge": "destroy",
    "wipe": "destroy",
    "destroy": "destroy",
    "drop": "destroy",
    "truncate": "destroy",
    "discard": "destroy",
    "trash": "destroy",
    "shred": "destroy",
    "revoke": "destroy",
    "unlink": "destroy",
    # spend: money moves.
    "pay": "spend",
    "transfer": "spend",
    "refund": "spend",
    "charge": "spend",
    "wire": "spend",
    "purchase": "spend",
    "buy": "spend",
    "reimburse": "spend",
    "donate": "spend",
    "order": "spend",
    # write: shared state changes (a repository, a calendar, a tracker, a file).
    "merge": "write",
    "push": "write",
    "deploy": "write",
    "release": "write",
    "commit": "write",
    "overwrite": "write",
    "install": "write",
    "uninstall": "write",
    "upgrade": "write",
    "rename": "write",
    "book": "write",
    "cancel": "write",
    "close": "write",
    "reopen": "write",
    "archive": "write",
    "approve": "write",
    "reject": "write",
    "assign": "write",
    "save": "write",
    "rollback": "write",
}
"""Verb lemma -> effect. A verb counts only where it is used as a verb (see NOUN_BEFORE/NOUN_AFTER)."""

NOUN_BEFORE: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "each",
        "every",
        "your",
        "my",
        "our",
        "their",
        "his",
        "her",
        "its",
        "any",
        "no",
        "one",
        "per",
        "by",
        "of",
        "via",
        "in",
        "on",
        "for",
        "with",
        "from",
        "new",
        "first",
        "last",
        "next",
        "same",
        "instead",
        "weekly",
        "daily",
        "monthly",
        "sort",
        "pull",
        "merge",
        "mail",
        "blog",
        "pay",
        "purchase",
        "bank",
        "wire",
        "git",
        "force",
        "drag",
        "and/or",
        "commit",
        "email",
        "e-mail",
        "chat",
        "slack",
        "welcome",
        "error",
        "status",
        "push",
        "release",
        "text",
    }
)
"""A word before a lexicon verb that makes it a noun ("the email", "a post", "by email", "pull request")."""

NOUN_AFTER: frozenset[str] = frozenset(
    {
        "address",
        "addresses",
        "id",
        "ids",
        "list",
        "lists",
        "thread",
        "threads",
        "subject",
        "body",
        "template",
        "templates",
        "draft",
        "drafts",
        "request",
        "requests",
        "queue",
        "date",
        "dates",
        "notes",
        "note",
        "number",
        "numbers",
        "policy",
        "history",
        "status",
        "window",
        "owner",
        "field",
        "fields",
        "message",
        "messages",
        "hash",
        "log",
        "logs",
        "channel",
        "channels",
        "notification",
        "notifications",
    }
)
"""A word after a lexicon verb that makes it a noun ("email address", "release notes", "merge request")."""

_COMMAND_TABLE: tuple[tuple[str, str, ActionEffect], ...] = (
    (r"\bgit\s+push\b", "git push", "write"),
    (r"\bgit\s+merge\b", "git merge", "write"),
    (r"\bgit\s+reset\s+--hard\b", "git reset --hard", "destroy"),
    (r"\bgit\s+clean\s+-\w*f", "git clean", "destroy"),
    (r"\bgh\s+pr\s+merge\b", "gh pr merge", "write"),
    (r"\bgh\s+(?:issue|pr)\s+(?:close|comment|create)\b", "gh", "write"),
    (r"\bgh\s+release\s+create\b", "gh release create", "write"),
    (r"\b(?:npm|pnpm|yarn|twine|cargo|gem)\s+publish\b", "publish", "send"),
    (r"\btwine\s+upload\b", "twine upload", "send"),
    (r"\bdocker\s+push\b", "docker push", "write"),
    (r"\bkubectl\s+(?:apply|delete|rollout|scale|patch)\b", "kubectl", "write"),
    (r"\bterraform\s+(?:apply|destroy)\b", "terraform", "write"),
    (r"\bhelm\s+(?:install|upgrade|uninstall)\b", "helm", "write"),
    (r"\baws\s+s3\s+(?:rm|rb)\b", "aws s3 rm", "destroy"),
    (r"\baws\s+s3\s+(?:cp|sync|mv)\b", "aws s3 cp", "write"),
    (r"(?:^|[\s;|&(`\"'])(?:sudo\s+)?rm\s+(?:-{1,2}[\w-]+\s+)*\S", "rm", "destroy"),
    (r"(?:^|[\s;|&(`\"'])rmdir\s", "rmdir", "destroy"),
    (r"\bfind\b[^\n]*\s-delete\b", "find -delete", "destroy"),
    (r"\bshred\s", "shred", "destroy"),
    (r"\bdrop\s+(?:table|database|schema)\b", "DROP", "destroy"),
    (r"\bdelete\s+from\b", "DELETE FROM", "destroy"),
    (r"\btruncate\s+table\b", "TRUNCATE", "destroy"),
    (r"\b(?:update)\s+\w+\s+set\b", "UPDATE", "write"),
    (r"\b(?:curl|wget)\b", "curl", "network"),
    (r"\b(?:scp|rsync|sftp|ftp)\s", "scp", "network"),
    (r"\bssh\s+\S", "ssh", "network"),
    (r"\b(?:sendmail|mailx?)\s", "mail", "send"),
    (r"\|\s*(?:ba|z|da|k)?sh\b", "| sh", "execute"),
    (r"\bchmod\s+(?:-R\s+)?[0-7]*7{2}\b", "chmod 777", "write"),
    (r"\bdd\s+if=", "dd", "destroy"),
    (r"\bmkfs\b", "mkfs", "destroy"),
)
COMMANDS: tuple[tuple[re.Pattern[str], str, ActionEffect], ...] = tuple(
    (re.compile(pattern, re.I), name, effect) for pattern, name, effect in _COMMAND_TABLE
)
"""Shell, git and SQL commands with a side effect, read in code spans, code blocks and scripts."""

HARNESS_BUILTINS: dict[str, ActionEffect] = {
    # Claude Code's built-in tools (docs.claude.com, "Tools available to Claude"); Codex's shell and patch tools.
    "Bash": "execute",
    "Write": "write",
    "Edit": "write",
    "MultiEdit": "write",
    "NotebookEdit": "write",
    "WebFetch": "network",
    "WebSearch": "network",
    "shell": "execute",
    "apply_patch": "write",
    "local_shell": "execute",
    "exec_command": "execute",
}
"""A harness's own tools that act (read-only ones, Read, Grep, Glob, LS, are left out)."""

# -- rules ---------------------------------------------------------------------------------------

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

# -- conditions ----------------------------------------------------------------------------------

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

# -- description scope ---------------------------------------------------------------------------

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

# -- output sections -----------------------------------------------------------------------------

OUTPUT_HEADING = re.compile(
    r"\b(outputs?|results?|responses?|reply|replies|answer|report|format|deliverables?|returns?|template|"
    r"fields|columns|sections)\b",
    re.I,
)
"""A heading that opens an output section: its list items, table rows and sub-headings are output elements."""

OUTPUT_LEAD_IN = re.compile(r"\b(reply|respond|output|return|report|include|fields?|format|answer)\b", re.I)
"""A sentence ending in ':' with one of these words introduces an output list."""

# -- skill-closing delimiters --------------------------------------------------------------------

CLOSING_TAGS: tuple[str, ...] = (
    "skill",
    "skill_content",
    "skill-content",
    "command-message",
    "command-name",
    "command-args",
    "system-reminder",
    "system",
    "instructions",
    "user",
    "assistant",
)
"""Closing tags a harness (or a model's chat template) uses to end the block the skill is sent in."""

CLOSING_LINE = re.compile(r"^\s*</\s*(" + "|".join(re.escape(t) for t in CLOSING_TAGS) + r")\s*>\s*$", re.I)
"""A line that is only such a closing tag."""
