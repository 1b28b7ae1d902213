"""Symlinks that lead out of a skill folder: what a skill must not carry into a replay's sandbox."""

from __future__ import annotations

import os
from pathlib import Path


def leaving_link_message(target: str) -> str:
    """What validate, load_skill and the harness installer say of a symlink that leads out of its skill folder."""
    return (
        f"symlink to {target!r} leads outside the skill folder: put the file itself in the folder "
        "(a replay never gets a file from outside the skill)"
    )


def links_leaving(folder: Path) -> list[tuple[Path, str]]:
    """Every symlink in `folder`, at any depth, that resolves outside it: (the link, its target as written), sorted.

    Why: a skill folder is copied into a replay's sandbox and read by the agent; a link to `~/.ssh/id_rsa`
    would carry a file of this machine there. No link is followed to look for more (a linked folder is
    one link), so a link cycle ends; a link that stays inside, dangling or not, is the skill's own affair.
    """
    root = os.path.realpath(folder)
    found: list[tuple[Path, str]] = []
    for dirpath, dirnames, filenames in os.walk(folder):  # followlinks=False: a linked folder is not entered
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                continue
            real = os.path.realpath(path)
            if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
                found.append((Path(path), os.readlink(path)))
    return sorted(found)
