"""What a check reads from the base revision: whether anything is blessed there, which folders of each
state are exported or read straight from git, and the tasks, goldens and noise records the team approved.

What the gate is comes from the base (docs/adr/0011): ratchet.yaml, the paths in it, a gate config given by
a path inside the repository, and the goldens, noise records and tasks it compares with (docs/adr/0007).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path, PurePosixPath

import git

from ratchet.config.gate import PROJECT_CONFIGS_DIR, GateConfig, config_repo_path
from ratchet.config.project import CONFIG_FILE, Paths, Project, world_at_nothing
from ratchet.core.errors import ConfigError, GoldenError
from ratchet.gate.revision_names import label
from ratchet.goldens.noise import NoiseRecord, load_noise_records, share_within_skills
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.goldens.trace import NOT_GOLDEN_SUFFIXES, Trace, load_golden_files
from ratchet.repo.trees import files_at, path_exists_at
from ratchet.store.parsed import ParsedCache


def base_is_blessed(repo: git.Repo, rev: str, project: Project, source: str | None, *, head: str) -> bool:
    """Whether the base holds a project to compare against; an error when a path setting points at nothing.

    False only when the base has none of skills, tasks and goldens and ratchet.yaml sets no path
    there (the first commit, or the commit before Ratchet was adopted): nothing was ever blessed.
    `source` names the base's ratchet.yaml in errors (None when the base has none). The world is
    the head's (every replay runs over it): a set paths.world must name something there, as record's must.
    """
    paths, at = project.config.paths, label(rev)
    if paths.world != Paths.model_fields["world"].default and not path_exists_at(repo, head, paths.world):
        raise ConfigError(world_at_nothing(f"{paths.world}@{label(head)}"), path=source)
    where = {name: str(getattr(paths, name)) for name in ("skills", "tasks", "goldens")}
    # A path set to something other than its default is a choice that can be a typo; the default is not.
    configured = {name for name, value in where.items() if value != Paths.model_fields[name].default}
    exists = {name: path_exists_at(repo, rev, value) for name, value in where.items()}
    if not any(exists.values()) and not configured:
        return False
    if not exists["goldens"]:
        missing = f"no goldens at {where['goldens']}@{at}"
        if "goldens" in configured:
            raise ConfigError(
                f"paths.goldens: {missing}: fix the path, or run ratchet record && ratchet bless", path=source
            )
        raise GoldenError(f"{missing}: run ratchet record && ratchet bless")
    for name in ("skills", "tasks"):
        if not exists[name]:
            raise ConfigError(
                f"paths.{name}: no {name} at {where[name]}@{at}: fix the path in {CONFIG_FILE}", path=source
            )
    return True


def unread_at_head(paths: Paths) -> tuple[str, ...]:
    """Folders of the head state no reader opens: its goldens (what was blessed is the base's, docs/adr/0007),
    unless the goldens folder holds or sits inside a path the replay reads (skills, tasks, world, workspaces).

    At 10,000 goldens, not exporting them halves a check's export and its cleanup.
    """
    goldens = posixpath.normpath(paths.goldens)
    read = [posixpath.normpath(getattr(paths, name)) for name in ("skills", "tasks", "world", "workspaces")]
    if goldens in (".", "") or any(_nested(goldens, other) or _nested(other, goldens) for other in read):
        return ()
    return (goldens,)


def unread_at_base(paths: Paths) -> tuple[str, ...]:
    """Folders of the base state no reader opens: its world and workspaces (every replay runs over the
    head's), unless one holds or sits inside a path the base is read for (skills, tasks, goldens, configs/).

    A gate that keeps its drift fixtures or judge prompt there has them exported after all (check_edit).
    """
    read = [posixpath.normpath(getattr(paths, name)) for name in ("skills", "tasks", "goldens")] + [PROJECT_CONFIGS_DIR]
    unread = [posixpath.normpath(getattr(paths, name)) for name in ("world", "workspaces")]
    return tuple(
        dict.fromkeys(
            folder
            for folder in unread
            if folder not in (".", "") and not any(_nested(folder, other) or _nested(other, folder) for other in read)
        )
    )


def is_inside(path: Path, tree: Path) -> bool:
    """Whether `path` (a config file, say) lies inside the exported `tree`."""
    return Path(os.path.normpath(path.resolve())).is_relative_to(tree.resolve())


def _nested(inner: str, outer: str) -> bool:
    return outer == "." or inner == outer or inner.startswith(outer + "/")


def goldens_from_git(repo: git.Repo, rev: str, paths: Paths) -> dict[str, bytes] | None:
    """The base's goldens as bytes by repo path, read from git so they are never written out (at 10,000
    goldens, writing and removing them was most of a check); None when they must be exported after all.

    None when the goldens folder holds or sits inside anything else the base is read for (skills, tasks,
    world, workspaces, configs/), holds a submodule, or has a folder named *.json: there the files on
    disk and the bytes could answer differently.
    """
    if not unread_at_head(paths) or _nested(PROJECT_CONFIGS_DIR, posixpath.normpath(paths.goldens)):
        return None
    folder = posixpath.normpath(paths.goldens)
    files = files_at(repo, rev, folder)
    depth = len(PurePosixPath(folder).parts)
    if files is None or any(part.endswith(".json") for path in files for part in PurePosixPath(path).parts[depth:-1]):
        return None
    return files


def reads_inside(gate: GateConfig, base_tree: Path, folder: str) -> bool:
    """Whether the gate reads its drift fixtures or judge prompt from inside `folder` of the base."""
    inside = (base_tree / folder).resolve()
    wanted = [base_tree / gate.drift.fixtures] + ([gate.prompt_path()] if gate.judge_prompt is not None else [])
    return any(
        Path(os.path.normpath(path.resolve())).is_relative_to(inside) or inside.is_relative_to(path.resolve())
        for path in wanted
    )


def blessed_state(
    base_tree: Path, project: Project, golden_bytes: dict[str, bytes] | None
) -> tuple[list[Task], dict[str, Trace], dict[str, NoiseRecord]]:
    """The tasks, goldens and goldens' noise records the team approved: all from the base (docs/adr/0007;
    an edit cannot declare its own replays noisy); the goldens from `golden_bytes` (goldens_from_git)
    when given, named by where their export would be."""
    paths = project.config.paths
    tasks = load_tasks(base_tree / paths.tasks, ParsedCache(project.home))
    goldens_dir, depth = base_tree / paths.goldens, len(PurePosixPath(posixpath.normpath(paths.goldens)).parts)
    contents = (
        None
        if golden_bytes is None
        else {goldens_dir.joinpath(*PurePosixPath(path).parts[depth:]): data for path, data in golden_bytes.items()}
    )
    files = load_golden_files(goldens_dir, contents)
    known = {task.id for task in tasks}
    for file, golden in files.items():
        if golden.task_id not in known:
            # Named by its scratch path, which errors_name_revisions turns into goldens/<skill>/<task>.json@rev.
            raise GoldenError(f"golden for task {golden.task_id!r}, which is not in {paths.tasks}", path=file)
    goldens = {golden.task_id: golden for golden in files.values()}
    return tasks, goldens, share_within_skills(load_noise_records(files, contents), goldens)


def goldens_count(golden_bytes: dict[str, bytes] | None, goldens_dir: Path) -> int:
    """How many goldens the base holds, counted without reading them (a cosmetic edit replays none)."""
    names = golden_bytes.keys() if golden_bytes is not None else (p.name for p in goldens_dir.rglob("*.json"))
    return sum(1 for name in names if name.endswith(".json") and not name.endswith(NOT_GOLDEN_SUFFIXES))


def config_at_base(repo: git.Repo, rev: str, config: GateConfig | str, root: Path) -> str | None:
    """The repo path of a config given as a path inside the repository, which is read at the base like
    one given by name (docs/adr/0011); a ConfigError when the base does not have it. None otherwise."""
    at = config_repo_path(config, root) if isinstance(config, str) else None
    if at is not None and not path_exists_at(repo, rev, at):
        raise ConfigError(
            f"gate config {config}: not in the base revision ({at}@{label(rev)}); the gate is read from "
            "the base, so a config this change adds takes effect once it is merged: check with a config "
            "the base has"
        )
    return at
