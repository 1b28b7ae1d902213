"""Skill folders in a tree of the user's repository: where they are, and links that lead out of them.

The rule for what a skill folder is belongs to ratchet.skills.discovery; here it is applied to a
revision's file list, read from git (ratchet/repo/trees.py), never from the working tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

import git

from ratchet.repo.trees import GITLINK, _read_blobs, _tree_entries
from ratchet.skills.discovery import skill_folders_in_tree


def skill_folders_at(repo: git.Repo, revs: Sequence[str], skills_dir: str = "skills") -> set[str]:
    """Repo paths of the skill folders below `skills_dir` at any of `revs` (INDEX for the index).

    The rule is ratchet.skills.discovery's, applied to each revision's file list.
    """
    folders: set[str] = set()
    for rev in revs:
        files = [entry.path for entry in _tree_entries(repo, rev, skills_dir) if entry.mode != GITLINK]
        folders |= skill_folders_in_tree(files, skills_dir)
    return folders


SYMLINK = "120000"
"""The tree mode of a symlink: its blob is the link's target, as written."""


def skill_links_leaving(repo: git.Repo, rev: str, skills_dir: str = "skills") -> list[tuple[str, str]]:
    """(repo path, target as written) of every symlink in a skill folder at `rev` (or INDEX) that leads out
    of that folder, sorted.

    Why: an export writes a link as a file holding its target, so a check never follows one; but the
    skill that would be installed from the tree is not the skill that was reviewed, and a harness given
    the real folder would carry the target into its sandbox. Where a link leads is worked out through
    the tree's other links, as the file system would (`a -> b/..` with `b -> .` leaves the folder).
    """
    entries = _tree_entries(repo, rev, None)
    folders = skill_folders_in_tree([e.path for e in entries if e.mode != GITLINK], skills_dir)
    links = [e for e in entries if e.mode == SYMLINK]
    if not links or not folders:
        return []
    blobs = _read_blobs(repo, [e.sha for e in links])
    targets = {e.path: blobs[e.sha].decode("utf-8", "replace") for e in links}
    leaving = []
    for path in sorted(targets):
        folder = next((f for f in folders if path.startswith(f + "/")), None)
        if folder is None:
            continue
        real = _resolve_in_tree(path, targets)
        if real is None or not (real == folder or real.startswith(folder + "/")):
            leaving.append((path, targets[path]))
    return leaving


def _resolve_in_tree(path: str, links: dict[str, str]) -> str | None:
    """Where `path` leads in a tree whose symlinks are `links` (path -> target); None outside the repository
    (an absolute target, `..` above the root) or in a loop."""
    pending = list(PurePosixPath(path).parts)
    done: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        done.append(part)
        target = links.get("/".join(done))
        if target is not None:
            hops += 1
            if hops > 40 or target.startswith("/"):  # 40: the kernel's own limit on links followed
                return None
            done.pop()
            pending[:0] = PurePosixPath(target).parts
    return "/".join(done)
