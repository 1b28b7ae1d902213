"""Reading the user's repository as trees and blobs, and exporting a tree into a folder.

A tree is read from the index (`ls-files --stage`) or from a commit (`ls-tree`, whose listing is kept:
the memos in ratchet/repo/git.py); blobs with one `cat-file --batch`. Nothing here writes to the
repository: export_tree writes into a folder under Ratchet's home (ratchet/repo/scratch.py).
"""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePosixPath

import git

from ratchet.core.errors import GitStateError, InputError
from ratchet.repo.git import INDEX, _git, _memo_lock, _repo_key, _z_fields, resolve_rev

GITLINK = "160000"
"""The tree mode of a submodule: a commit of another repository, whose content we cannot see."""

_LISTINGS_KEPT = 4  # commits whose listings stay in memory (a check reads two)
_listings: OrderedDict[tuple[str, int, str], tuple[_Entry, ...]] = OrderedDict()


# -- reading trees ---------------------------------------------------------------------------


class _Entry:
    __slots__ = ("mode", "path", "sha")

    def __init__(self, mode: str, sha: str, path: str) -> None:
        self.mode = mode
        self.sha = sha
        self.path = path


def _tree_entries(repo: git.Repo, rev: str, prefix: str | None) -> list[_Entry]:
    """Every blob (and gitlink) at `rev` or in the index, optionally only under `prefix`."""
    pathspec = [prefix.strip("/")] if prefix else []
    entries: list[_Entry] = []
    if rev == INDEX:
        out = _git(repo, "ls-files", "--stage", "-z", "--full-name", "--", *pathspec)
        unmerged: set[str] = set()
        for record in _z_fields(out):
            meta, path = record.split("\t", 1)
            mode, sha, stage = meta.split(" ")
            if stage != "0":
                unmerged.add(path)
                continue
            entries.append(_Entry(mode, sha, path))
        if unmerged:
            raise GitStateError(f"the index has unmerged paths ({sorted(unmerged)[0]} ...); resolve the conflict first")
    else:
        entries = list(_commit_listing(repo, resolve_rev(repo, rev)))
    if prefix:
        # pathspecs match prefixes of names too ("skills/a" matches "skills/ab"): keep whole folders
        want = prefix.strip("/")
        entries = [e for e in entries if e.path == want or e.path.startswith(want + "/")]
    return entries


def _commit_listing(repo: git.Repo, sha: str) -> tuple[_Entry, ...]:
    """Every blob and gitlink of commit `sha`: one `ls-tree` per commit, kept (see the memos above)."""
    key = (*_repo_key(repo), sha)
    with _memo_lock:
        known = _listings.get(key)
        if known is not None:
            _listings.move_to_end(key)
            return known
    out = _git(repo, "ls-tree", "-r", "-z", "--full-tree", sha, "--")
    entries = []
    for record in _z_fields(out):
        meta, path = record.split("\t", 1)
        mode, _kind, obj = meta.split(" ")
        entries.append(_Entry(mode, obj, path))
    listing = tuple(entries)
    with _memo_lock:
        _listings[key] = listing
        while len(_listings) > _LISTINGS_KEPT:
            _listings.popitem(last=False)
    return listing


# -- reading blobs ---------------------------------------------------------------------------
#
# A check reads blobs four times (ratchet.yaml, the base's goldens, then each state's export), each
# one `cat-file --batch`. Inside blobs_read_once, the blobs of both states were read by one process
# and every read takes them from there: a blob's id names its bytes for ever, so none can be stale.

_read_once: ContextVar[tuple[tuple[str, int], dict[str, bytes]] | None] = ContextVar("_read_once", default=None)


@contextmanager
def blobs_read_once(repo: git.Repo, revs: Sequence[str]) -> Iterator[None]:
    """Read every blob of `revs` (commits or INDEX) in one git process; reads inside take them from it.

    Best effort: where that read fails (an object missing, an unmerged index), nothing is held, and
    each read inside fails, or not, exactly as it would have without this.
    """
    try:
        entries = [e for rev in dict.fromkeys(revs) for e in _tree_entries(repo, rev, None) if e.mode != GITLINK]
        blobs: dict[str, bytes] | None = _read_blobs(repo, [e.sha for e in entries])
    except GitStateError:
        blobs = None
    if blobs is None:
        yield
        return
    token = _read_once.set((_repo_key(repo), blobs))
    try:
        yield
    finally:
        _read_once.reset(token)


def _read_blobs(repo: git.Repo, shas: Sequence[str]) -> dict[str, bytes]:
    """Contents of many blobs with one `cat-file --batch` (none for those blobs_read_once holds)."""
    held = _read_once.get()
    known = held[1] if held is not None and held[0] == _repo_key(repo) else {}
    blobs = {sha: known[sha] for sha in set(shas) if sha in known}
    unique = sorted(set(shas) - blobs.keys())
    if not unique:
        return blobs
    out = _git(repo, "cat-file", "--batch", stdin="".join(f"{s}\n" for s in unique).encode())
    pos = 0
    for sha in unique:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split(" ")
        if len(header) != 3:
            raise GitStateError(f"object {sha} is missing from the repository")
        size = int(header[2])
        blobs[sha] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def read_file_at(repo: git.Repo, rev: str, path: str, *, error: type[InputError] = InputError) -> str | None:
    """Text of `path` at `rev` (or INDEX); None when the path is absent there.

    Bytes that are not UTF-8 are one `error` naming `path@rev` and the line, never text with
    U+FFFD in it: a garbled ratchet.yaml would be parsed as settings nobody wrote.
    """
    clean = str(PurePosixPath(path.strip("/")))
    entries = [e for e in _tree_entries(repo, rev, clean) if e.path == clean and e.mode != GITLINK]
    if not entries:
        return None
    data = _read_blobs(repo, [entries[0].sha])[entries[0].sha]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"{clean}@{rev if rev == INDEX else rev[:10]}"
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"not UTF-8 text (byte {exc.start}): save the file as UTF-8", path=where, line=line) from None


def files_at(repo: git.Repo, rev: str, folder: str) -> dict[str, bytes] | None:
    """Repo path -> bytes of every file below `folder` at `rev` (or INDEX), read in one batch, none written.

    What export_tree would write there (a symlink is its target), for a reader that needs the bytes,
    not the files. None when the folder holds a submodule: its export is a folder, not a file.
    """
    want = str(PurePosixPath(folder.strip("/")))
    entries = [e for e in _tree_entries(repo, rev, want) if e.path.startswith(want + "/")]
    if any(e.mode == GITLINK for e in entries):
        return None
    blobs = _read_blobs(repo, [e.sha for e in entries])
    return {e.path: blobs[e.sha] for e in entries}


def path_exists_at(repo: git.Repo, rev: str, path: str) -> bool:
    """Whether `path` (a file, or a folder with anything in it) is in the tree at `rev` (or INDEX)."""
    return bool(_tree_entries(repo, rev, str(PurePosixPath(path.strip("/")))))


def _safe_target(dest: Path, path: str) -> Path:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or any(p in ("..", ".git") for p in parts):
        raise GitStateError(f"refusing to export unsafe path {path!r}")
    return dest.joinpath(*parts)


def _is_under(path: str, folders: Iterable[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def export_tree(repo: git.Repo, rev: str, dest: Path, *, prefix: str | None = None, skip: Collection[str] = ()) -> None:
    """Write every file of the tree at `rev` (or INDEX), optionally only under `prefix`, into dest.

    Paths keep their place relative to the repository root; folders in `skip` (repo paths) are
    left out, for a state whose reader never opens them (check's head never reads its goldens).
    Symlinks become files holding their target; submodules become empty folders. Each file is
    one open, write and close, each folder one makedirs: an export of 10,000 goldens is mostly that.
    """
    entries = _tree_entries(repo, rev, prefix)
    skipped = [str(PurePosixPath(folder.strip("/"))) for folder in skip]
    skipped = [folder for folder in skipped if folder != "."]
    if skipped:
        entries = [e for e in entries if not _is_under(e.path, skipped)]
    blobs = _read_blobs(repo, [e.sha for e in entries if e.mode != GITLINK])
    dest.mkdir(parents=True, exist_ok=True)
    made = {str(dest)}
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for entry in entries:
        target = str(_safe_target(dest, entry.path))
        if entry.mode == GITLINK:
            os.makedirs(target, exist_ok=True)
            made.add(target)
            continue
        parent = os.path.dirname(target)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        fd = os.open(target, flags, 0o666)
        try:
            data = memoryview(blobs[entry.sha])
            while data:
                data = data[os.write(fd, data) :]
            if entry.mode == "100755":
                os.fchmod(fd, os.fstat(fd).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        finally:
            os.close(fd)
