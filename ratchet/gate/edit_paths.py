"""The paths an edit changes, sorted by who owns them: a skill's files, files under the skills folder no
skill owns, and the gate's own settings (which the check reads from the base and names when changed)."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from ratchet.config.gate import PROJECT_CONFIGS_DIR, GateConfig
from ratchet.config.project import CONFIG_FILE, Paths
from ratchet.gate.models import Unseen
from ratchet.repo.changes import ChangedPath, skills_touched
from ratchet.world.commands import COMMANDS_FILE
from ratchet.world.state import DECLARED_TOOLS_FOLDER as _TOOLS_FOLDER


def files_by_skill(changes: Sequence[ChangedPath], skills_dir: str, folders: set[str]) -> dict[str, list[str]]:
    """Changed skill name -> the repo paths changed in its folder, by the same ownership rule as skills_touched."""
    files: dict[str, list[str]] = {}
    for change in changes:
        if not change.is_gitlink:  # a moved submodule is named on its own (submodules_under)
            for name in skills_touched([change], skills_dir, folders):
                files.setdefault(name, []).append(change.path)
    return files


def unowned(changes: Sequence[ChangedPath], skills_dir: str, folders: set[str]) -> list[Unseen]:
    """Changed files under the skills folder that belong to no skill (a category's README, a shared
    script): no replay loads them, and a harness that does would not be checked, so each is named."""
    prefix = PurePosixPath(skills_dir.strip("/")).parts
    return [
        Unseen(
            kind="unsent",
            skill=change.path,
            level="warn",
            detail=(
                f"{change.path} changed under the skills folder but belongs to no skill: not replayed; "
                "review it, or move it into the skill folder that uses it"
            ),
        )
        for change in changes
        if not change.is_gitlink
        and PurePosixPath(change.path).parts[: len(prefix)] == prefix
        and not skills_touched([change], skills_dir, folders)
    ]


def settings_changed(
    changes: Sequence[ChangedPath], gate: GateConfig, base_tree: Path, config_at: str | None, paths: Paths
) -> list[str]:
    """Repo paths of the gate's own settings the edit changes: the config given by path (named first),
    ratchet.yaml, configs/, what the config reads from the base (its judge prompt, its drift fixtures),
    the world's tool declarations (<world>/tools/) and its mocked commands (<world>/commands.yaml).

    The declarations are read from the head, like the rest of the world, so that a new skill can bring
    its tools; but their `effect` is what Level 0's hard fail reads, so an edit that relabels a write as
    a read would otherwise turn its own new side effect into a PASS: it is named and gated instead. The
    mocked commands are read from the base (revisions.export_head) and named the same way: a mock's effect
    is its command's, and a mock of `git push` labelled a read would pass the edit's own push."""
    read = ([gate.prompt_path()] if gate.judge_prompt is not None else []) + (
        [base_tree / gate.drift.fixtures] if gate.drift.enabled else []
    )
    base = base_tree.resolve()
    inside = [Path(os.path.normpath(path.resolve())) for path in read]
    world = posixpath.normpath(paths.world)
    owned = [
        CONFIG_FILE,
        PROJECT_CONFIGS_DIR,
        posixpath.join(world, _TOOLS_FOLDER),
        posixpath.join(world, COMMANDS_FILE),
        *([config_at] if config_at else []),
        *(path.relative_to(base).as_posix() for path in inside if path != base and path.is_relative_to(base)),
    ]
    changed = [c.path for c in changes if any(c.path == own or c.path.startswith(own + "/") for own in owned)]
    return sorted(changed, key=lambda path: path != config_at)
