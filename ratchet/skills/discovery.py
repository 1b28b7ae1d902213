"""Where skills live: skill folders at any depth under a root, and the layouts harnesses use.

Why: real skill repositories nest (`skills/<category>/<name>/`), keep skills where a harness
reads them (`.claude/skills/`, `.agents/skills/`, `.codex/skills/`) or inside plugins
(`<plugin>/.claude-plugin/plugin.json` next to `<plugin>/skills/`); a validator that only looked
one level down found none of them. One rule decides what a skill folder is, here, for the
file system (validate, load_skills) and for a git tree (ratchet.repo.changes.skills_touched) alike:

- a folder holding a `SKILL.md` (or an entry that is plainly meant as one: a differently-cased
  `skill.md`, a dangling symlink) is a skill folder, and its own subfolders (`references/`,
  `scripts/`, ...) are not searched for more skills;
- hidden folders are skipped, except the harness folders `.claude`, `.agents` and `.codex`;
  so are `node_modules` and `__pycache__` (installed junk, never a skill anyone edits).

A folder with no skill in it is not a skill missing its `SKILL.md`: it is a folder (a category,
`docs/`, `assets/`), and is passed over.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from ratchet.core.errors import InputError

SKILL_FILE = "SKILL.md"
HARNESS_DIRS = (".agents", ".claude", ".codex")
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})
# The folders `ratchet validate` looks in when given no PATH and no ratchet.yaml (see harness_roots).
HARNESS_LAYOUTS = (
    "skills/",
    ".claude/skills/",
    ".agents/skills/",
    ".codex/skills/",
    "<plugin>/skills/ (next to <plugin>/.claude-plugin/plugin.json)",
    "plugins/*/skills/",
)


def is_searched(name: str) -> bool:
    """Whether a folder of this name is searched for skills (hidden, node_modules ... are not)."""
    if name in SKIPPED_DIRS:
        return False
    return not name.startswith(".") or name in HARNESS_DIRS


def is_skill_file_name(name: str) -> bool:
    """`SKILL.md` in any case: a `skill.md` marks a skill folder too, so validation can refuse it."""
    return name.lower() == SKILL_FILE.lower()


def is_skill_folder(folder: Path) -> bool:
    """A folder with a SKILL.md, or an entry meant as one (other case, dangling symlink)."""
    try:
        return folder.is_dir() and any(is_skill_file_name(entry.name) for entry in folder.iterdir())
    except OSError:
        return False  # an unreadable folder was never listed as a skill


def find_skill_folders(root: Path, *, escapes: list[Path] | None = None) -> list[Path]:
    """Every skill folder below root (not root itself), at any depth, sorted, each folder once.

    Symlinked folders are followed (skills are often installed as links) but each real folder is
    visited once, so a link cycle ends and a skill linked from two places is one skill. With
    `escapes`, a folder that resolves outside root is neither searched nor returned but added to it:
    a project's skills come from its own tree, and a link to `~` must not have the machine searched.
    """
    found: dict[Path, Path] = {}
    visited: set[Path] = set()
    stack = [root]
    top = root.resolve() if escapes is not None else None
    while stack:
        folder = stack.pop()
        try:
            real = folder.resolve()
            if real in visited:
                continue
            visited.add(real)
            children = sorted(child for child in folder.iterdir() if is_searched(child.name) and child.is_dir())
        except OSError:
            continue
        if escapes is not None and top is not None:
            leaving = [child for child in children if not _resolves_inside(child, top)]
            escapes.extend(leaving)
            children = [child for child in children if child not in leaving]
        for child in reversed(children):
            if is_skill_folder(child):
                found.setdefault(child.resolve(), child)
            else:
                stack.append(child)
    return sorted(found.values())


def _resolves_inside(path: Path, top: Path) -> bool:
    try:
        return path.resolve().is_relative_to(top)
    except (OSError, RuntimeError):  # a link loop leads nowhere inside
        return False


def harness_roots(cwd: Path) -> list[Path]:
    """The existing folders under cwd where harnesses keep skills (HARNESS_LAYOUTS), sorted."""
    roots = [cwd / "skills", *(cwd / name / "skills" for name in HARNESS_DIRS)]
    try:
        children = sorted(child for child in cwd.iterdir() if child.is_dir())
    except OSError:
        children = []
    roots.extend(child / "skills" for child in children if (child / ".claude-plugin" / "plugin.json").is_file())
    plugins = cwd / "plugins"
    if plugins.is_dir():
        roots.extend(sorted(plugin / "skills" for plugin in plugins.iterdir() if plugin.is_dir()))
    unique: dict[Path, Path] = {}
    for root in roots:
        if root.is_dir():
            unique.setdefault(root.resolve(), root)
    return sorted(unique.values())


def skill_folders_in_tree(files: Iterable[str], root: str) -> set[str]:
    """The skill folders (posix paths) a tree's file list holds below `root`, by the rule above.

    For a git revision, where there is no folder to list: a folder is a skill folder when a file
    named SKILL.md (any case) sits in it, no part of its path below root is skipped, and no
    folder above it (below root) is a skill folder already.
    """
    prefix = PurePosixPath(root.strip("/") or ".").parts
    candidates: set[tuple[str, ...]] = set()
    for file in files:
        parts = PurePosixPath(file).parts
        if len(parts) < len(prefix) + 2 or parts[: len(prefix)] != prefix or not is_skill_file_name(parts[-1]):
            continue
        below = parts[len(prefix) : -1]
        if all(is_searched(part) for part in below):
            candidates.add(parts[:-1])
    outermost = {
        folder
        for folder in candidates
        if not any(folder[:end] in candidates for end in range(len(prefix) + 1, len(folder)))
    }
    return {"/".join(folder) for folder in outermost}


def no_harness_skills(cwd: Path) -> InputError:
    """The error for `ratchet validate` with no PATH where no harness layout exists."""
    return InputError(
        f"no skills found: looked in {', '.join(HARNESS_LAYOUTS)}; give a PATH, or set paths.skills in ratchet.yaml",
        path=cwd,
    )
