"""Canonical JSON: the one way Ratchet writes JSON to disk, so equal data is equal bytes; and the one
bounded way it reads JSON input (load_json_file), so a malformed file is one line, never a traceback."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from ratchet.core.errors import InputError

_COMPACT = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
_INDENTED = json.JSONEncoder(sort_keys=True, indent=2, ensure_ascii=False)
"""What json.dumps builds on every call with these arguments, built once (a hot path calls it ~10^6 times a
run); JSONEncoder.encode keeps no state between calls."""


def canonical_dumps(data: Any, *, indent: int | None = 2) -> str:
    """Sorted keys, fixed separators, trailing newline when indented."""
    if indent is None:
        return _COMPACT.encode(data)
    if indent == 2:
        return _INDENTED.encode(data) + "\n"
    return json.dumps(data, sort_keys=True, indent=indent, ensure_ascii=False) + "\n"


def digest(data: Any) -> str:
    """sha256 of the compact canonical JSON of data."""
    return hashlib.sha256(canonical_dumps(data, indent=None).encode()).hexdigest()


def atomic_write_text(path: Path, text: str) -> None:
    """Write via a temp file in the same folder and rename, so readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes 0600 files; keep an existing file's mode, else the usual 0644.
        os.fchmod(fd, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


MAX_JSON_DEPTH = 100


def _nested_deeper_than(data: Any, limit: int) -> bool:
    """Whether lists and objects nest deeper than limit (level by level over containers only: no recursion on
    hostile data, and no visit of the strings and numbers that are most of a large file)."""
    level = [data] if isinstance(data, (dict, list)) else []
    depth = 1
    while level:
        if depth > limit:
            return True
        deeper: list[Any] = []
        for value in level:
            children = value.values() if isinstance(value, dict) else value
            deeper.extend(child for child in children if isinstance(child, (dict, list)))
        level, depth = deeper, depth + 1
    return False


def _could_be_deeper_than(text: str, limit: int) -> bool:
    """False when `text` holds too few brackets to nest deeper than limit (each level opens one)."""
    return text.count("[") + text.count("{") > limit


def load_json_text(text: str, *, source: str, error: type[InputError]) -> Any:
    """Parse JSON; every way it can fail is one `error` naming source (and the line of a syntax error).

    Refused rather than parsed: lists and objects nested more than MAX_JSON_DEPTH deep, and
    integers longer than Python's digit limit (sys.get_int_max_str_digits()); unchecked, they
    end in RecursionError or ValueError tracebacks here or in whatever walks the data next.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON: {exc.msg}", path=source, line=exc.lineno) from None
    except RecursionError:
        data, deep = None, True
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        limit = sys.get_int_max_str_digits()
        raise error(f"refused: a JSON number longer than {limit} digits", path=source) from None
    else:
        deep = _could_be_deeper_than(text, MAX_JSON_DEPTH) and _nested_deeper_than(data, MAX_JSON_DEPTH)
    if deep:
        raise error(f"refused: JSON nested more than {MAX_JSON_DEPTH} levels deep", path=source)
    if _may_hold_surrogate(text) and _has_lone_surrogate(data):
        raise error(LONE_SURROGATE, path=source)
    return data


LONE_SURROGATE = "refused: a string holds a surrogate escape (\\ud800-\\udfff) that is not a character"
"""A `\\ud800` escape parses to a str that no UTF-8 writer accepts: refused where it is read, not where it
is next written (a golden, a verdict, the ledger)."""


def is_unwritable(text: str) -> bool:
    """Whether `text` holds a lone surrogate (it cannot be encoded as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _may_hold_surrogate(text: str) -> bool:
    """False when parsing `text` cannot have made a lone surrogate: the text itself encodes, and it has no
    `\\ud800`-`\\udfff` escape (a pair's escapes match too: then the parsed data is walked)."""
    return is_unwritable(text) or _SURROGATE_ESCAPE.search(text) is not None


def _has_lone_surrogate(data: Any) -> bool:
    """Whether any string or key in parsed JSON holds a lone surrogate (iterative; JSON has no cycles)."""
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if is_unwritable(value):
                return True
        elif isinstance(value, dict):
            stack.extend(value.keys())
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def read_utf8(path: Path, *, error: type[InputError]) -> str:
    """A text file's content, decoded as-is; unreadable or non-UTF-8 bytes are one `error` with the line."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", path=path) from None
    return decode_utf8(data, path=path, error=error)


def decode_utf8(data: bytes, *, path: Path, error: type[InputError]) -> str:
    """`data` (the bytes of `path`, read from disk or from git) as text; non-UTF-8 is one `error` with the line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"not UTF-8 text (byte {exc.start}): save the file as UTF-8", path=path, line=line) from None


def load_json_file(path: Path, *, error: type[InputError]) -> Any:
    """read_utf8, then load_json_text: one `error` naming path for every way the file can be bad."""
    return load_json_text(read_utf8(path, error=error), source=str(path), error=error)
