"""A plain reading of a script's added lines, in any language: file deletions, network calls, new commands."""

from __future__ import annotations

import re

from ratchet.diff.lexicon.actions import COMMANDS
from ratchet.diff.models import DiffFinding, DiffKind
from ratchet.diff.scripts.language import Language

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


def _code_of(line: str, language: Language) -> str:
    """The line without a trailing comment (a `#` that starts the line or follows a space)."""
    stripped = line.strip()
    if stripped.startswith(("#", "//")):
        return ""
    return re.split(r"\s#\s", line, maxsplit=1)[0] if language in ("python", "shell") else line


def command_words(lines: list[str], language: Language) -> set[str]:
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


def plain_reading(
    path: str, lines: list[str], added: set[int], language: Language, *, known: set[str]
) -> list[DiffFinding]:
    """The deletions, network calls and new commands (new against `known`) on the added lines."""
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
    for word in sorted(command_words([code], language) - known - _SHELL_BUILTINS):
        if re.fullmatch(r"[\w./-]+", word):
            return word
    return None
