"""Scripts under a skill folder, diffed with the field's own analysers and a plain reading of the added lines.

Python goes through Bandit and shell through ShellCheck (scripts/install_shellcheck.sh installs the
pinned Debian package; Bandit is a dependency). Only what they find on lines the edit added is
reported: a script's old problems are not this edit's. Every script, in any language, is also read
for new commands, network calls and file deletions on its added lines. An analyser that is not
installed, or fails, is a finding of its own (`analyser_unavailable`): never a silent skip.
"""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from ratchet.diff.lexicon import COMMANDS
from ratchet.diff.models import DiffFinding, DiffKind

Language = Literal["python", "shell", "other"]
ANALYSER_TIMEOUT_S = 120.0
SCRIPT_SUFFIXES: dict[str, Language] = {
    ".py": "python",
    ".sh": "shell",
    ".bash": "shell",
    ".ksh": "shell",
    ".dash": "shell",
    ".js": "other",
    ".mjs": "other",
    ".cjs": "other",
    ".ts": "other",
    ".rb": "other",
    ".pl": "other",
    ".ps1": "other",
    ".zsh": "other",
    ".php": "other",
    ".lua": "other",
    ".r": "other",
}
_SHEBANG = re.compile(r"^#!\s*(?:/usr/bin/env\s+(?:-S\s+)?)?\S*?(python[\d.]*|bash|sh|dash|ksh|zsh|node|ruby|perl)\b")
_DELETION = re.compile(
    r"\bshutil\.rmtree\b|\bos\.(?:remove|unlink|rmdir|removedirs)\b|\.unlink\(|\.rmdir\(|"
    r"\bfs\.(?:rm|rmSync|unlink|unlinkSync|rmdir|rmdirSync)\b|\bRemove-Item\b|\bFileUtils\.rm"
)
_NETWORK = re.compile(
    r"\brequests\.\w+\(|\bhttpx\.\w+|\burllib\.request\b|\burlopen\(|\bhttp\.client\b|"
    r"\bsocket\.(?:socket|create_connection)\b|\bsmtplib\b|\bfetch\(|\baxios\b|"
    r"\bInvoke-(?:WebRequest|RestMethod)\b|\bnet\.connect\b|\bftplib\b|https?://[^\s\"')]+"
)
_PY_COMMAND = re.compile(
    r"\bsubprocess\.(?:run|call|Popen|check_output|check_call|getoutput)\b|"
    r"\bos\.(?:system|popen|exec\w*|spawn\w*)\b|\bpty\.spawn\b|(?<![\w.])(?:eval|exec)\(|"
    r"\bchild_process\b|\bexecSync\(|\bspawnSync\("
)
_SHELL_BUILTINS = frozenset(
    {
        "echo",
        "printf",
        "cd",
        "set",
        "export",
        "local",
        "read",
        "test",
        "[",
        "[[",
        "true",
        "false",
        "exit",
        "return",
        "if",
        "then",
        "else",
        "elif",
        "fi",
        "for",
        "in",
        "do",
        "done",
        "while",
        "until",
        "case",
        "esac",
        "function",
        "shift",
        "source",
        ".",
        "trap",
        "declare",
        "readonly",
        "unset",
        "break",
        "continue",
        "wait",
        "}",
        "{",
        ";;",
        "getopts",
        "printenv",
        "command",
        "type",
        "let",
        "eval",
        "exec",
    }
)
_ASSIGNMENT = re.compile(r"^[A-Za-z_][\w]*=")


@dataclass(frozen=True)
class Analysers:
    """How to run each analyser; None when it is not installed."""

    bandit: tuple[str, ...] | None
    shellcheck: str | None

    @classmethod
    def installed(cls) -> Analysers:
        """Bandit as `python -m bandit` in this interpreter, ShellCheck from PATH."""
        bandit = (sys.executable, "-m", "bandit") if importlib.util.find_spec("bandit") is not None else None
        return cls(bandit=bandit, shellcheck=shutil.which("shellcheck"))


def script_language(path: str, data: bytes) -> Language | None:
    """The language a script is analysed as, or None for a file that is not a script."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in SCRIPT_SUFFIXES:
        return SCRIPT_SUFFIXES[suffix]
    shebang = _SHEBANG.match(data[:200].decode("utf-8", "replace"))
    if shebang is None:
        return None
    interpreter = shebang.group(1)
    return (
        "python"
        if interpreter.startswith("python")
        else "shell"
        if interpreter in ("bash", "sh", "dash", "ksh")
        else "other"
    )


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
        analysed = _bandit(path, new, added, analysers, scratch)
    elif language == "shell":
        analysed = _shellcheck(path, new, added, analysers, scratch)
    found = [*analysed, *_reading(path, new_lines, added, language, known=_commands(old_text.split("\n"), language))]
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


# -- the analysers -------------------------------------------------------------------------------


def _unavailable(path: str, name: str, why: str) -> DiffFinding:
    return DiffFinding(
        kind=DiffKind.ANALYSER_UNAVAILABLE,
        path=path,
        analyser=name.lower(),
        message=f"{name} {why}: the added lines were not analysed",
    )


def _copy(scratch: Path, path: str, data: bytes) -> Path:
    folder = scratch / "analysed"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / PurePosixPath(path).name
    target.write_bytes(data)
    return target


def _report(command: list[str], key: str) -> list[dict[str, Any]] | str:
    """The `key` list of an analyser's JSON report, or why there is none (it could not run or answer)."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=ANALYSER_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    try:
        found: list[dict[str, Any]] = json.loads(done.stdout)[key]
    except (ValueError, KeyError, TypeError) as exc:
        return str(exc)
    return found


def _bandit(path: str, data: bytes, added: set[int], analysers: Analysers, scratch: Path) -> list[DiffFinding]:
    if analysers.bandit is None:
        return [_unavailable(path, "Bandit", "is not installed (pip install bandit)")]
    results = _report([*analysers.bandit, "-f", "json", "-q", str(_copy(scratch, path, data))], "results")
    if isinstance(results, str):
        return [_unavailable(path, "Bandit", f"failed ({results})")]
    findings = []
    for issue in results:
        lines = set(issue.get("line_range") or [issue["line_number"]])
        if lines & added:
            line = min(lines & added)
            rule = issue["test_id"]
            findings.append(
                DiffFinding(
                    kind=DiffKind.SCRIPT_FINDING,
                    path=path,
                    line=line,
                    analyser=f"bandit {rule}",
                    new=issue.get("code"),
                    message=f"Bandit {rule} ({issue['issue_severity'].lower()} severity, "
                    f"{issue['issue_confidence'].lower()} confidence) on an added line: {issue['issue_text']}",
                )
            )
    return findings


def _shellcheck(path: str, data: bytes, added: set[int], analysers: Analysers, scratch: Path) -> list[DiffFinding]:
    if analysers.shellcheck is None:
        return [_unavailable(path, "ShellCheck", "is not installed (scripts/install_shellcheck.sh)")]
    command = [analysers.shellcheck, "-f", "json1"]
    if not data.startswith(b"#!"):
        command += ["-s", "bash"]
    comments = _report([*command, str(_copy(scratch, path, data))], "comments")
    if isinstance(comments, str):
        return [_unavailable(path, "ShellCheck", f"failed ({comments})")]
    return [
        DiffFinding(
            kind=DiffKind.SCRIPT_FINDING,
            path=path,
            line=comment["line"],
            analyser=f"shellcheck SC{comment['code']}",
            message=f"ShellCheck SC{comment['code']} ({comment['level']}) on an added line: {comment['message']}",
        )
        for comment in comments
        if comment["line"] in added and comment["level"] in ("error", "warning")
    ]


# -- a plain reading -----------------------------------------------------------------------------


def _code_of(line: str, language: Language) -> str:
    """The line without a trailing comment (a `#` that starts the line or follows a space)."""
    stripped = line.strip()
    if stripped.startswith(("#", "//")):
        return ""
    return re.split(r"\s#\s", line, maxsplit=1)[0] if language in ("python", "shell") else line


def _commands(lines: list[str], language: Language) -> set[str]:
    """The first words of a shell script's commands (what a later edit's new command is new against)."""
    if language != "shell":
        return set()
    words: set[str] = set()
    for line in lines:
        for part in re.split(r"[;&|]+|\$\(", _code_of(line, language)):
            tokens = [t for t in part.split() if not _ASSIGNMENT.match(t) and t not in ("sudo", "env", "then", "do")]
            if tokens:
                words.add(tokens[0].strip("()"))
    return words


def _reading(path: str, lines: list[str], added: set[int], language: Language, *, known: set[str]) -> list[DiffFinding]:
    findings: list[DiffFinding] = []
    for number in sorted(added):
        code = _code_of(lines[number - 1], language) if number <= len(lines) else ""
        if not code.strip():
            continue
        shown = " ".join(code.split())
        deletion = _command_named(code, ("destroy",)) or _matched(_DELETION, code)
        network = _command_named(code, ("network", "send")) or _matched(_NETWORK, code)
        if deletion is not None:
            findings.append(
                DiffFinding(
                    kind=DiffKind.SCRIPT_DELETION,
                    path=path,
                    line=number,
                    action=deletion,
                    effect="destroy",
                    new=shown,
                    message=f"adds a file deletion ({deletion}): '{shown[:90]}'",
                )
            )
        if network is not None:
            findings.append(
                DiffFinding(
                    kind=DiffKind.SCRIPT_NETWORK,
                    path=path,
                    line=number,
                    action=network,
                    effect="network",
                    new=shown,
                    message=f"adds a network call ({network}): '{shown[:90]}'",
                )
            )
        if deletion is None and network is None:
            command = _new_command(code, language, known)
            if command is not None:
                findings.append(
                    DiffFinding(
                        kind=DiffKind.SCRIPT_COMMAND,
                        path=path,
                        line=number,
                        action=command,
                        effect="execute",
                        new=shown,
                        message=f"adds a command ({command}): '{shown[:90]}'",
                    )
                )
    return findings


def _command_named(code: str, effects: tuple[str, ...]) -> str | None:
    """The first lexicon command with one of `effects` in `code`."""
    return next((name for pattern, name, effect in COMMANDS if effect in effects and pattern.search(code)), None)


def _matched(pattern: re.Pattern[str], code: str) -> str | None:
    found = pattern.search(code)
    return found.group(0) if found else None


def _new_command(code: str, language: Language, known: set[str]) -> str | None:
    acting = _command_named(code, ("write", "execute"))
    if acting is not None:
        return acting
    if language != "shell":
        found = _PY_COMMAND.search(code)
        return found.group(0).rstrip("(") if found else None
    for word in sorted(_commands([code], language) - known - _SHELL_BUILTINS):
        if re.fullmatch(r"[\w./-]+", word):
            return word
    return None
