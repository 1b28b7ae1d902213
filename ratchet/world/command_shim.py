#!/usr/bin/env python3
"""A mocked command inside a harness replay: records the call, answers from commands.yaml, reaches nothing.

STDLIB ONLY, no ratchet import: this file is copied into each replay's scratch folder (its first
line replaced by the base Python, `-IS`: no site, no user or environment settings) and every
mocked or known-external command name in `<scratch>/bin/` is a link to it; under bubblewrap it is
also bound over the host's own copy of each such command (/usr/bin/git), so an absolute path
runs it too. It answers under the name it was run as (argv[0]'s last part): the first mock in
`<scratch>/commands/mocks.json` (written from commands.yaml) whose name and argument patterns
match prints the mock's stdout and stderr and exits with its code; no mock prints NOT_MOCKED and
exits 127. Either way, BEFORE it answers, it sends one JSON line (name, argv, cwd, the mock's index
or null, the exit code) over `<scratch>/commands/record.sock` to the driver's collector on the host
(ratchet/harness/commands.py) and waits for its "ok": the record is kept outside the replay, and
under bubblewrap the shim, bin/ and the commands folder are read-only, so nothing the replay runs
can erase or rewrite it. A call it cannot record exits 126 and says why: a command that ran unseen
would be a silent pass.

Run as `date` (allowed, not mocked) it runs the host's date (DATE) on the frozen clock (CLOCK, epoch
seconds) unless told which date to show (-d, -r, -f, -s or a date to set): `$(date)` in a command line
is the same in every replay. Not recorded: reading the clock reaches nothing.

ratchet.world.commands imports args_match, first_match and NOT_MOCKED from here, so the matching
the shim does in the sandbox and the matching the tests check are one piece of code.
"""

from __future__ import annotations

import errno
import fnmatch
import json
import os
import socket
import sys
from collections.abc import Sequence
from typing import Any

ROOT = ""  # replaced when installed: the replay's scratch folder (the shim may run from /usr/bin/git)
CLOCK = ""  # replaced when installed: the frozen clock, epoch seconds ("": `date` is not the shim's)
DATE = ""  # replaced when installed: the host's date command
NOT_MOCKED = "ratchet: {name} is not mocked (commands.yaml)"
REST = "**"
"""As the last argument pattern: any number of further words, none included."""
FOLDER = "commands"
MOCKS = "mocks.json"
SOCKET = "record.sock"
ACK = b"ok\n"
WAIT_S = 30.0
_DATE_SOURCES = frozenset("dfrs")
"""date's short options that name the date to show or set: the frozen clock does not apply."""


def args_match(patterns: Sequence[str] | None, args: Sequence[str]) -> bool:
    """Whether `args` (the words after the name) fit `patterns`: one fnmatch pattern per word (case
    matters); a last `**` takes any rest; no patterns at all match any arguments."""
    if patterns is None:
        return True
    if patterns and patterns[-1] == REST:
        fixed = patterns[:-1]
        return len(args) >= len(fixed) and all(fnmatch.fnmatchcase(a, p) for a, p in zip(args, fixed, strict=False))
    return len(args) == len(patterns) and all(fnmatch.fnmatchcase(a, p) for a, p in zip(args, patterns, strict=True))


def first_match(mocks: Sequence[dict[str, Any]], name: str, args: Sequence[str]) -> int | None:
    """The index of the first mock of `name` whose `args` patterns fit, or None."""
    for index, mock in enumerate(mocks):
        if mock.get("name") == name and args_match(mock.get("args"), args):
            return index
    return None


def _record(folder: str, entry: dict[str, Any]) -> None:
    """Send `entry` to the collector and wait for its acknowledgement; OSError when it is not kept."""
    line = (json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    os.chdir(folder)  # a relative address: a unix socket's path is limited to 107 bytes, a scratch path is not
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(WAIT_S)
        conn.connect(SOCKET)
        conn.sendall(line)
        answer = b""
        while not answer.endswith(b"\n") and len(answer) < len(ACK):
            chunk = conn.recv(len(ACK))
            if not chunk:
                break
            answer += chunk
    if answer != ACK:
        raise OSError(errno.EPROTO, "the collector did not acknowledge the record")


def frozen_date(args: Sequence[str]) -> list[str] | None:
    """The host date's argv answering `date args...` on the frozen clock, or None when `args` name the date
    themselves (-d, --date, -r, --reference, -f, --file, -s, --set, or MMDDhhmm to set it): run as given."""
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--"):
            if arg.split("=", 1)[0] in ("--date", "--reference", "--file", "--set"):
                return None
        elif arg.startswith("-") and len(arg) > 1:
            letters = arg[1:].split("I", 1)[0]  # -I takes its format glued on (-Iseconds)
            if _DATE_SOURCES & set(letters):
                return None
        elif not arg.startswith("+"):
            return None
    return [DATE, "-d", f"@{CLOCK}", *args]


def main(argv: Sequence[str]) -> int:
    name = os.path.basename(argv[0]) if argv else "?"
    args = list(argv[1:])
    if args and name == os.path.basename(os.path.realpath(__file__)):  # bash's command_not_found_handle: NAME ARGS
        name, args = os.path.basename(args[0]), args[1:]
    folder = os.path.join(ROOT or os.path.dirname(os.path.realpath(__file__)), FOLDER)
    try:
        with open(os.path.join(folder, MOCKS), encoding="utf-8") as handle:
            mocks: list[dict[str, Any]] = json.load(handle)
    except (OSError, ValueError):
        mocks = []
    index = first_match(mocks, name, args)
    if name == "date" and CLOCK and DATE and all(mock.get("name") != "date" for mock in mocks):
        frozen = frozen_date(args)
        os.execv(DATE, frozen if frozen is not None else [DATE, *args])
    if index is None:
        out, err, code = "", NOT_MOCKED.format(name=name) + "\n", 127
    else:
        mock = mocks[index]
        out, err, code = str(mock.get("stdout") or ""), str(mock.get("stderr") or ""), int(mock.get("exit") or 0)
    try:
        cwd = os.getcwd()
    except OSError:
        cwd = ""
    try:
        _record(folder, {"name": name, "argv": [name, *args], "cwd": cwd, "mock": index, "exit": code})
    except OSError as exc:
        sys.stderr.write(
            f"ratchet: {name} ran but could not be recorded ({exc.strerror or exc}): "
            "the harness's own sandbox may refuse it (Codex: add `shell` to harness.builtin_tools)\n"
        )
        return 126
    sys.stdout.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
