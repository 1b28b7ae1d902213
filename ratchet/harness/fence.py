"""The host's command folders as a bubblewrap replay sees them: the allowed commands, and the shim for the rest.

PATH alone does not keep a replay to its bin/ (harness/commands.py): `/usr/lib/git-core/git push` or
`/usr/bin/perl` names the host's program by its path. Under bubblewrap each folder of FENCED the host has is
a fresh tmpfs holding, under the host's own names: what is kept (the allowed commands' bin/ links resolve
to, the harness's runtime, and what the sandbox's own command line runs, each with every link on its way)
as the host has it, and every other name as a link to the shim, which records the call and answers from
commands.yaml (NOT_MOCKED, exit 127, when no mock fits). The folder is then read-only again. Nothing else
of /usr changes: libraries, data and interpreters' modules stay where programs look for them.

command_covers (harness/commands.py) says which host paths are the shim (fence_covers); cover_args turns that
into bwrap arguments, keeping whatever the sandbox's own command line names (setpriv, the relay's Python, the
harness). Without bubblewrap nothing here applies: an absolute path reaches the host (docs/harnesses.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

FENCED: tuple[str, ...] = (
    "/usr/local/bin",
    "/usr/local/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/bin",
    "/sbin",
    "/usr/lib/git-core",
    "/usr/libexec",
)
"""Folders of programs, by path: those the host has as real folders (not /bin -> usr/bin) are fenced, and
each folder directly inside /usr/libexec (Fedora's git-core lives there)."""


RUNTIME = ("env", "sh")
"""Always the host's: what a harness starts on (#!/usr/bin/env node) and what a shell-less spawn runs (/bin/sh)."""


@dataclass(frozen=True)
class _Entry:
    path: Path
    link: str | None
    """Where the entry links to (os.readlink), None for a file or folder."""
    folder: bool


@cache
def _listing() -> dict[Path, tuple[_Entry, ...]]:
    """Each FENCED folder this host has (real folders, each once, outermost first) and its entries: read once per
    process, since every replay fences the same folders."""
    folders: dict[Path, None] = {}
    for name in FENCED:
        folder = Path(name)
        if folder.is_dir() and not folder.is_symlink():
            folders[folder] = None
            if name == "/usr/libexec":
                folders.update(dict.fromkeys(sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())))
    listing: dict[Path, tuple[_Entry, ...]] = {}
    for folder in folders:
        entries = []
        with os.scandir(folder) as scan:
            for item in sorted(scan, key=lambda item: item.name):
                link = os.readlink(item.path) if item.is_symlink() else None
                entries.append(_Entry(Path(item.path), link, link is None and item.is_dir(follow_symlinks=False)))
        listing[folder] = tuple(entries)
    return listing


def fenced_folders() -> list[Path]:
    """The FENCED folders this host has (real folders, each once), outermost first."""
    return list(_listing())


def hops(path: Path) -> list[Path]:
    """`path` and every path its links lead through, each with its folder resolved (/bin/sh -> /usr/bin/sh,
    /usr/bin/dash): what must be there for the name to run."""
    found: list[Path] = []
    current = Path(os.path.normpath(path))
    while current not in found:
        current = Path(os.path.realpath(current.parent)) / current.name
        found.append(current)
        if not current.is_symlink():
            break
        current = Path(os.path.normpath(current.parent / os.readlink(current)))
    return found


def fence_covers(shim: Path, kept: Iterable[Path]) -> list[tuple[Path, Path]]:
    """(the shim, a host path) for every name in the fenced folders but those `kept` (allowed commands' host
    paths, the frozen date, the shim's Python) and RUNTIME lead through. With git kept, its git-core helpers
    stay the host's (an allowed git runs its subcommands from there)."""
    starts = [*kept, Path(sys.base_prefix) / "bin" / "python3", *(Path("/usr/bin") / name for name in RUNTIME)]
    keep = {hop for start in starts if start.is_absolute() for hop in hops(start)}
    git = any(hop.name == "git" for hop in keep)
    return [
        (shim, entry.path)
        for folder, entries in _listing().items()
        if not (git and folder.name == "git-core")
        for entry in entries
        if entry.path not in keep and not entry.folder
    ]


def cover_args(covers: Iterable[tuple[Path, Path]], *, keep: Sequence[str] = ()) -> list[str]:
    """bwrap arguments for command_covers' list: each (source, target) outside the fenced folders bound
    read-only over itself (the record's own paths), then the fence (fence_args)."""
    fenced = set(_listing())
    shims = {target: source for source, target in covers if target.parent in fenced}
    args = [
        arg
        for source, target in covers
        if target.parent not in fenced and target.exists()
        for arg in ("--ro-bind", str(source), str(target))
    ]
    return args + fence_args(shims, keep=keep, fenced=fenced)


def fence_args(shims: Mapping[Path, Path], *, keep: Sequence[str], fenced: set[Path]) -> list[str]:
    """bwrap arguments (after /usr is bound) that fence each folder holding a path of `shims`: a tmpfs with each
    such name a link to its shim and every other name as the host has it, then read-only again. A path `keep`
    names (absolute words of the sandbox's own command line) and the links on its way are never the shim."""
    if not shims:
        return []
    kept = {hop for word in keep if word.startswith("/") for hop in hops(Path(word))}
    args: list[str] = []
    holding = {target.parent for target in shims}
    folders = [folder for folder in _listing() if folder in fenced and folder in holding]
    for folder in folders:
        args += ["--tmpfs", str(folder)]
        for entry in _listing()[folder]:
            path = entry.path
            if path in shims and path not in kept:
                args += ["--symlink", str(shims[path]), str(path)]
            elif entry.link is not None:
                args += ["--symlink", entry.link, str(path)]
            elif path not in holding:  # a fenced folder inside gets its own tmpfs below
                args += ["--ro-bind", str(path), str(path)]
    for folder in reversed(folders):
        args += ["--remount-ro", str(folder)]
    return args
