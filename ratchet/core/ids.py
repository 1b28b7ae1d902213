"""Ids that become paths, and the one check that a path built from them stays inside its root.

Task ids, skill names, workspace names and bench edit ids are joined into paths
(`goldens/<skill>/<task>.json`, `<workspaces>/<workspace>/`, `bench/edits/<edit>.json`). Each
is checked against a strict pattern where it is read, because a value such as `*` turns a
glob into "every file" and `../../x` turns a join into a write anywhere. `inside()` then
resolves every path built from one and refuses it outside its root: a pattern cannot see a
symlink, and defence in depth costs one `resolve()`.
"""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from pathlib import Path

from ratchet.core.errors import InputError

MAX_SKILL_NAME_CHARS = 64


class IdKind(StrEnum):
    """What an id names; its value is how an error message calls it."""

    TASK = "task id"
    SKILL = "skill name"
    WORKSPACE = "workspace name"
    EDIT = "edit id"


_PATTERNS: dict[IdKind, re.Pattern[str]] = {
    IdKind.TASK: re.compile(r"[a-z0-9][a-z0-9_-]{0,79}"),
    IdKind.WORKSPACE: re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"),
    IdKind.EDIT: re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}"),
}

_RULES: dict[IdKind, str] = {
    IdKind.TASK: "1-80 lowercase letters, digits, - or _, starting with a letter or digit",
    IdKind.SKILL: f"1-{MAX_SKILL_NAME_CHARS} lowercase letters, digits and single hyphens, no hyphen at either end",
    IdKind.WORKSPACE: "one folder name: 1-128 letters, digits, ., - or _, starting with a letter or digit, no '..'",
    IdKind.EDIT: "1-128 letters, digits, ., - or _, starting with a letter or digit, no '..'",
}


def _is_skill_name(value: str) -> bool:
    """The agentskills.io name rule, as ratchet.skills.rules validates it: letters may be any script's lowercase."""
    return (
        0 < len(value) <= MAX_SKILL_NAME_CHARS
        and all(c == "-" or (c.isalnum() and c == c.lower()) for c in value)
        and not value.startswith("-")
        and not value.endswith("-")
        and "--" not in value
    )


def id_problem(kind: IdKind, value: object) -> str | None:
    """Why `value` is not a valid id of this kind (one line), or None when it is."""
    if kind is IdKind.SKILL:
        ok = isinstance(value, str) and _is_skill_name(value)
    else:
        ok = isinstance(value, str) and _PATTERNS[kind].fullmatch(value) is not None and ".." not in value
    return None if ok else f"{kind} {value!r} must be {_RULES[kind]}"


def check_id(
    kind: IdKind,
    value: str,
    *,
    path: Path | str | None = None,
    line: int | None = None,
    error: type[InputError] = InputError,
) -> str:
    """`value` when it is a valid id of this kind; else `error` naming the file (and line)."""
    problem = id_problem(kind, value)
    if problem is not None:
        raise error(problem, path=path, line=line)
    return value


def inside(root: Path, *parts: str) -> Path:
    """`root / parts`, after checking that it resolves (symlinks followed) inside `root`.

    Returns the joined path unresolved, so callers print the path they asked for.
    """
    joined = root.joinpath(*parts)
    base = root.resolve()
    resolved = joined.resolve()
    if any(Path(part).is_absolute() for part in parts) or not resolved.is_relative_to(base):
        raise InputError(
            f"{'/'.join(parts)!r} leads outside {root} (to {resolved}): use a plain name inside it", path=root
        )
    return joined


def derived_seed(*parts: object) -> int:
    """An integer seed from ids (e.g. task id and run number): never the clock, never `random`'s state."""
    text = "\0".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")
