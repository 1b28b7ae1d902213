"""What a shell command line shows the model of a file, or runs: by whole path words, never substrings.

trace_map turns a read of an installed skill file into `skill:read`, and gate/unseen.py counts a skill file
as replayed when a golden read or ran it. Both need the same narrow reading of a command line:

- content_operands: the files a line shows the content of, when every segment of it is a content reader (cat,
  head, tail, less, or sed -n printing line ranges) and nothing redirects, substitutes or runs in the
  background. `ls`, `echo`, `wc -c` or `stat` of a file shows its name or size, `cat f | wc -l` a count: none
  of them is a read of the file's content, and each stays the shell call it was (so a write beside it, too);
- ran_operands: the files a line runs: a segment's command word that is a path, or the script after an
  interpreter (python3 scripts/report.py).
"""

from __future__ import annotations

import posixpath
import re
import shlex
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ratchet.core.chat import ToolCallRequest

CONTENT_READERS = frozenset({"cat", "head", "tail", "less", "sed"})
INTERPRETERS = re.compile(r"^(python[0-9.]*|bash|sh|dash|zsh|node|ruby|perl|deno|bun)$")
_SEGMENTS = re.compile(r"\|\||&&|[|;\n]")
_UNSAFE = re.compile(r"[<>`&]|\$\(")
_VALUED = {"head": ("-n", "-c"), "tail": ("-n", "-c"), "sed": ("-e", "--expression")}
_OPTIONS = {
    "cat": re.compile(r"^-[AbeEnstTuv]+$|^--[a-z-]+$"),
    "head": re.compile(r"^-([nc]|[nc]?\d+[kKmM]?|[qv])$|^--(lines|bytes)=\d+$"),
    "tail": re.compile(r"^-([nc]|[nc]?\d+[kKmM]?|[qv])$|^--(lines|bytes)=\d+$"),
    "less": re.compile(r"^-[NRSXF]+$"),  # never -o (a log file) or +commands
    "sed": re.compile(r"^(-[nEr]+|-e|--quiet|--silent|--expression|--regexp-extended)$"),  # never -i, w or e
}
_SED_PRINT = re.compile(r"^\s*(\d+|\$)?\s*(,\s*(\d+|\$))?\s*p\s*$")


def _segments(line: str) -> list[list[str]] | None:
    if _UNSAFE.search(line.replace("&&", " ")):
        return None
    try:
        return [words for part in _SEGMENTS.split(line) if (words := shlex.split(part))]
    except ValueError:
        return None


def _reader_operands(words: list[str]) -> list[str] | None:
    """The file operands of one content-reader segment; None when it is none, or has an option that may do more
    (sed without -n, or with a script other than line ranges printed)."""
    command = posixpath.basename(words[0])
    allowed = _OPTIONS.get(command)
    if allowed is None:
        return None
    operands: list[str] = []
    scripts: list[str] = []
    valued, quiet = "", False
    for word in words[1:]:
        if valued:
            scripts += [word] if valued in ("-e", "--expression") else []
            valued = ""
        elif word.startswith(("-", "+")) and word != "-":
            if not allowed.match(word):
                return None
            valued = word if word in _VALUED.get(command, ()) else ""
            quiet = quiet or word in ("--quiet", "--silent") or (word[:2] != "--" and "n" in word[1:])
        else:
            operands.append(word)
    if command == "sed":
        if not scripts and operands:
            scripts, operands = [operands[0]], operands[1:]
        if not quiet or not scripts or not all(_SED_PRINT.match(script) for script in scripts):
            return None
    return [word for word in operands if word != "-"]


def content_operands(line: str) -> list[str] | None:
    """The files `line` shows the content of, when it does nothing but show content; else None."""
    segments = _segments(line)
    if not segments:
        return None
    found: list[str] = []
    for words in segments:
        operands = _reader_operands(words)
        if operands is None:
            return None
        found += operands
    return found


def ran_operands(line: str) -> list[str]:
    """The files `line` runs: a command word that is a path, or an interpreter's script (not -m, not -c)."""
    try:
        segments = [shlex.split(part) for part in _SEGMENTS.split(line)]
    except ValueError:
        return []
    found: list[str] = []
    for words in segments:
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):  # FOO=1 python3 x.py
            words = words[1:]
        if not words:
            continue
        if "/" in words[0]:
            found.append(words[0])
        elif INTERPRETERS.match(posixpath.basename(words[0])):
            rest = words[1:]
            if any(word in ("-m", "-c", "-e") for word in rest):
                continue
            script = next((word for word in rest if not word.startswith("-")), None)
            if script is not None:
                found.append(script)
    return found


def under(word: str, folder: str, prefixes: tuple[str, ...]) -> str | None:
    """`word`'s path inside `folder` (relative, posix), when the word is the whole path of a file there: relative
    to the workspace (`folder/...`, `./folder/...`) or absolute under one of `prefixes` (the workspace as it is
    on disk and as the model saw it). None for anything else, a path leaving `folder` or a pattern included."""
    if any(char in word for char in "*?[{~$"):
        return None
    if word.startswith("/"):
        path = posixpath.normpath(word)
        base = next((prefix for prefix in prefixes if path.startswith(prefix.rstrip("/") + "/")), None)
        if base is None:
            return None
        path = path[len(base.rstrip("/")) + 1 :]
    else:
        path = posixpath.normpath(word)
    if not path.startswith(folder + "/"):
        return None
    rest = path[len(folder) + 1 :]
    return rest if rest and not rest.startswith("..") else None


SHELL_TOOLS = frozenset({"Bash", "bash", "shell", "exec_command", "run_shell", "run_command"})
"""Built-in tools that run a command line (Claude Code's Bash, Codex's exec_command, a `command` agent's own)."""


def shell_command(call: ToolCallRequest) -> str | None:
    """The command line a shell tool call runs (`command` or `cmd`; a list of words is joined), else None."""
    if call.name not in SHELL_TOOLS:
        return None
    value = call.arguments.get("command", call.arguments.get("cmd"))
    if isinstance(value, list) and all(isinstance(word, str) for word in value):
        return shlex.join(value)
    return value if isinstance(value, str) else None
