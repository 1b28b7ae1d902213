"""Which language a script is analysed as: by its suffix, else by its shebang."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Literal

Language = Literal["python", "shell", "other"]
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
