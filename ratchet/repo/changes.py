"""What changed between two states of the user's repository: paths, submodules and the skills they touch.

A state is a commit or the index (INDEX). Two commits are compared from their listings, which a check
reads anyway; the index through `diff-index --cached`. Either way a moved submodule is one path.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import PurePosixPath
from typing import NamedTuple

import git

from ratchet.core.errors import GitStateError
from ratchet.repo.git import INDEX, _git, _z_fields, resolve_rev
from ratchet.repo.skill_folders import skill_folders_at
from ratchet.repo.trees import GITLINK, _commit_listing, _Entry

_ABSENT = "000000"
"""The mode git's raw diff gives the side that lacks the path."""


class ChangedPath(NamedTuple):
    """One path that differs between two states, with its mode on each side ("000000": absent)."""

    path: str
    old_mode: str
    new_mode: str

    @property
    def is_gitlink(self) -> bool:
        return GITLINK in (self.old_mode, self.new_mode)


def changed_paths(repo: git.Repo, base: str, head: str | None = None, *, staged: bool = False) -> list[ChangedPath]:
    """Every path that differs between `base` and `head` (or the index with staged=True), sorted.

    Renames count on both sides (rename detection is off), as do additions and deletions. A
    submodule whose commit moved is one path (a gitlink), whatever .gitmodules or diff.ignoreSubmodules
    say: `--ignore-submodules=none` overrides both, so an edit cannot hide one from the gate.
    """
    base_sha = resolve_rev(repo, base)
    if staged or head == INDEX:
        if head is not None and head != INDEX:
            raise GitStateError("give either a head revision or staged=True, not both")
        out = _git(repo, "diff-index", "--cached", "-z", "--no-renames", "--ignore-submodules=none", base_sha, "--")
    else:
        head_sha = resolve_rev(repo, head if head is not None else "HEAD")
        return _listing_changes(_commit_listing(repo, base_sha), _commit_listing(repo, head_sha))
    fields = _z_fields(out)
    changes: dict[str, ChangedPath] = {}
    # raw -z records: ":<old mode> <new mode> <old sha> <new sha> <status>" NUL "<path>" NUL
    for meta, path in zip(fields[0::2], fields[1::2], strict=True):
        old_mode, new_mode = meta.lstrip(":").split(" ")[:2]
        changes[path] = ChangedPath(path, old_mode, new_mode)
    return [changes[path] for path in sorted(changes)]


def _listing_changes(base: Sequence[_Entry], head: Sequence[_Entry]) -> list[ChangedPath]:
    """What `diff-tree -r --no-renames --ignore-submodules=none` says of two commits, from their listings.

    Both listings are what a check reads anyway (skill folders, exports), so the difference costs no
    git process: a path whose mode or object differs, or that one side lacks ("000000"), sorted.
    """
    old, new = {e.path: e for e in base}, {e.path: e for e in head}
    changes = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before is not None and after is not None and (before.mode, before.sha) == (after.mode, after.sha):
            continue
        changes.append(
            ChangedPath(
                path, before.mode if before is not None else _ABSENT, after.mode if after is not None else _ABSENT
            )
        )
    return changes


def changed_files(repo: git.Repo, base: str, head: str | None = None, *, staged: bool = False) -> list[str]:
    """Paths that differ between `base` and `head` (or the index with staged=True), sorted (see changed_paths)."""
    return [change.path for change in changed_paths(repo, base, head, staged=staged)]


def _under(path: str, folder: str) -> tuple[str, ...] | None:
    """The parts of `path` below `folder`, or None when it is not below it."""
    prefix = PurePosixPath(folder.strip("/")).parts
    parts = PurePosixPath(path).parts
    return parts[len(prefix) :] if len(parts) > len(prefix) and parts[: len(prefix)] == prefix else None


def skills_touched(
    changes: Sequence[ChangedPath], skills_dir: str = "skills", skill_folders: Collection[str] | None = None
) -> list[str]:
    """Names of the skill folders with a changed file (or a changed submodule) below `skills_dir`.

    With `skill_folders` (the repo paths of the folders holding a SKILL.md at the base or the
    head: skill_folders_at), a path belongs to the deepest of its folders among them, so nested
    layouts (`skills/<category>/<name>/`) name the skill, and a category's own files name none.
    A path under no such folder, and every path without `skill_folders`, belongs to the first
    folder below `skills_dir` (`skills_dir/<name>/...`, or a submodule at `skills_dir/<name>`),
    which is what a flat layout always gave, even for a folder whose SKILL.md is missing.
    """
    names: set[str] = set()
    for change in changes:
        below = _under(change.path, skills_dir)
        if below is None or (len(below) == 1 and not change.is_gitlink):
            continue
        name = below[0] if skill_folders is None else _owning_skill(change, below, skill_folders)
        if name is not None:
            names.add(name)
    return sorted(names)


def _owning_skill(change: ChangedPath, below: tuple[str, ...], skill_folders: Collection[str]) -> str | None:
    parts = PurePosixPath(change.path).parts
    top = len(parts) - len(below)  # parts[:top] is skills_dir
    # A gitlink may itself be the skill folder (a submodule skill); a file is inside one.
    for end in range(len(parts) if change.is_gitlink else len(parts) - 1, top, -1):
        if "/".join(parts[:end]) in skill_folders:
            return parts[end - 1]
    first = "/".join(parts[: top + 1])
    if any(folder.startswith(first + "/") for folder in skill_folders):
        return parts[-1] if change.is_gitlink else None  # a folder of skills, not a skill
    return below[0]


def submodules_under(changes: Sequence[ChangedPath], folder: str) -> list[str]:
    """Paths of the changed gitlinks under `folder`, sorted."""
    return [c.path for c in changes if c.is_gitlink and _under(c.path, folder) is not None]


def changed_skills(
    repo: git.Repo,
    base: str,
    head: str | None = None,
    *,
    staged: bool = False,
    skills_dir: str = "skills",
) -> list[str]:
    """Names of skill folders with any changed file or submodule, sorted (see skills_touched)."""
    revs = [resolve_rev(repo, base), INDEX if staged or head == INDEX else resolve_rev(repo, head or "HEAD")]
    return skills_touched(
        changed_paths(repo, base, head, staged=staged), skills_dir, skill_folders_at(repo, revs, skills_dir)
    )
