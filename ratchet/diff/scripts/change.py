"""One script's change: the lines it added, what the analysers and the plain reading find on them, and a code
change that nothing flagged (never cosmetic)."""

from __future__ import annotations

import io
import re
import tokenize
from difflib import SequenceMatcher
from pathlib import Path

from ratchet.diff.models import DiffFinding, DiffKind
from ratchet.diff.scripts.analysers import Analysers, bandit_findings, shellcheck_findings
from ratchet.diff.scripts.language import Language, script_language
from ratchet.diff.scripts.reading import command_words, plain_reading


def diff_script(
    path: str, old: bytes | None, new: bytes | None, *, analysers: Analysers, scratch: Path
) -> list[DiffFinding]:
    """Findings on the lines a script edit adds (a new script: all of them); `scratch` holds the copy analysers read."""
    if new is None:
        return [DiffFinding(kind=DiffKind.FILE_REMOVED, path=path, side="base", message="removes the script")]
    language = script_language(path, new) or "other"
    new_text = new.decode("utf-8", "replace")
    old_text = old.decode("utf-8", "replace") if old is not None else ""
    new_lines = new_text.split("\n")
    added = added_lines(old_text.split("\n") if old is not None else [], new_lines)
    findings: list[DiffFinding] = []
    if old is None:
        findings.append(
            DiffFinding(
                kind=DiffKind.FILE_ADDED,
                path=path,
                message=f"adds the script ({len(new_text.splitlines())} lines, {language})",
            )
        )
    if not added:
        return findings or _unflagged(path, old, new, added, language)
    analysed: list[DiffFinding] = []
    if language == "python":
        analysed = bandit_findings(path, new, added, analysers, scratch)
    elif language == "shell":
        analysed = shellcheck_findings(path, new, added, analysers, scratch)
    found = [
        *analysed,
        *plain_reading(path, new_lines, added, language, known=command_words(old_text.split("\n"), language)),
    ]
    if not findings and not found:
        found = _unflagged(path, old, new, added, language)
    return findings + sorted(found, key=lambda f: (f.line or 0, list(DiffKind).index(f.kind), f.message))


def _unflagged(path: str, old: bytes | None, new: bytes, added: set[int], language: Language) -> list[DiffFinding]:
    """A script whose code changed with nothing flagged is still a finding: never cosmetic, so a check
    replays it (a changed constant, branch or removed safety check is behaviour no analyser names).

    Read byte for byte (surrogateescape), so a change in bytes that are not UTF-8 is never lost."""
    old_text = (old or b"").decode("utf-8", "surrogateescape")
    new_text = new.decode("utf-8", "surrogateescape")
    if _code(old_text, language) == _code(new_text, language):
        return []  # comments, blank lines or trailing whitespace only
    removed = len(added_lines(new_text.split("\n"), old_text.split("\n")))
    return [
        DiffFinding(
            kind=DiffKind.FILE_CHANGED,
            path=path,
            message=(
                f"changes the script ({len(added)} line(s) added or changed, {removed} removed; nothing the analysers "
                "or the reading flag)"
            ),
        )
    ]


_PY_DIRECTIVE = re.compile(r"^#!|^[ \t\f]*#.*?coding[:=]")
_HEREDOC = re.compile(r"<<-?\s*['\"]?([A-Za-z_][\w]*)['\"]?")


def _code(text: str, language: Language) -> list[str]:
    """The script as it runs, for telling a comment-only edit from a change in code.

    Python: its tokens without comments and blank lines, but the shebang and an encoding declaration
    on the first two lines are code (they choose the interpreter and how the rest is read). Shell:
    lines without trailing whitespace, blank lines and whole-line `#` comments, except the shebang and
    lines inside a here-document (data). Any other language: only blank lines and trailing whitespace
    are dropped, since what a comment is differs (`#` is a private field in JavaScript). Text that does
    not tokenize is compared as it is."""
    if language == "python":
        try:
            return [
                tok.string
                for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type != tokenize.NL
                and (tok.type != tokenize.COMMENT or (tok.start[0] <= 2 and _PY_DIRECTIVE.match(tok.string)))
            ]
        except (tokenize.TokenError, SyntaxError):
            return text.split("\n")
    kept: list[str] = []
    heredoc: str | None = None
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.rstrip()
        if heredoc is not None:
            kept.append(line)
            heredoc = None if line.strip() == heredoc else heredoc
            continue
        if not line.strip():
            continue
        if language == "shell" and line.lstrip().startswith("#") and not (number == 1 and line.startswith("#!")):
            continue
        kept.append(line)
        if language == "shell" and (opened := _HEREDOC.search(line)):
            heredoc = opened.group(1)
    return kept


def added_lines(old: list[str], new: list[str]) -> set[int]:
    """1-based numbers of the lines of `new` that are not in `old` (inserted or replaced)."""
    found: set[int] = set()
    for op, _, _, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op in ("insert", "replace"):
            found.update(range(j1 + 1, j2 + 1))
    return found
