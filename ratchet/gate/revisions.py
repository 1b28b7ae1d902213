"""The edit as git holds it, read for a check: its two revisions, the project read from the base, the paths
and skills it changes; the base state exported and the gate read from it (docs/adr/0011).

Nothing here replays: check_edit reads the edit and the base through these, names what it cannot
check, and decides an edit that changes nothing the model reads before any replay is paid for.
"""

from __future__ import annotations

import posixpath
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import git

from ratchet.config.gate import GateConfig, check_judge_tiers, gate_config_path, load_gate_config
from ratchet.config.harness import HarnessName
from ratchet.config.project import CONFIG_FILE, Paths, Project, project_from_text
from ratchet.core.errors import ConfigError, SkillError
from ratchet.diff.edit import skill_diffs
from ratchet.diff.models import EditDiff
from ratchet.gate.base_state import (
    base_is_blessed,
    config_at_base,
    goldens_from_git,
    is_inside,
    reads_inside,
    unread_at_base,
    unread_at_head,
)
from ratchet.gate.edit_paths import settings_changed, unowned
from ratchet.gate.evidence import evidence_changes
from ratchet.gate.mutation import head_score_notes
from ratchet.gate.revision_names import label
from ratchet.gate.shard import Unchecked
from ratchet.repo.changes import ChangedPath, changed_paths, skills_touched, submodules_under
from ratchet.repo.scratch import scratch_checkout
from ratchet.repo.skill_folders import skill_folders_at, skill_links_leaving
from ratchet.repo.trees import export_tree, read_file_at
from ratchet.skills.links import leaving_link_message
from ratchet.world.commands import COMMANDS_FILE


@dataclass(frozen=True)
class RepoEdit:
    """The edit as git holds it: its two revisions, the project read from the base, the paths and skills it changes."""

    repo: git.Repo
    root: Path
    base: str
    """The base's sha."""
    head: str
    """The head's revision, or INDEX (`staged`)."""
    project: Project
    blessed: bool
    """Whether the base holds a project to compare against (base_state.base_is_blessed)."""
    changes: list[ChangedPath]
    folders: set[str]
    """The skill folders of both states."""
    changed: list[str]
    """The skills the edit touches."""

    @property
    def paths(self) -> Paths:
        return self.project.config.paths

    @property
    def simulated(self) -> bool:
        """Whether the upstream is the simulator, as the verdict says."""
        return self.project.config.upstream == "sim"


def read_edit(
    repo: git.Repo, root: Path, base: str, head: str, *, staged: bool, home: Path | None, harness: HarnessName | None
) -> RepoEdit:
    """The base's ratchet.yaml (with `harness` if given), whether anything is blessed there, and what changed."""
    config_text = read_file_at(repo, base, CONFIG_FILE, error=ConfigError)
    config_source = f"{CONFIG_FILE}@{label(base)}"
    project = project_from_text(root, config_text, source=config_source, home=home).with_harness(harness)
    skills_dir = project.config.paths.skills
    blessed = base_is_blessed(repo, base, project, config_source if config_text is not None else None, head=head)
    changes = changed_paths(repo, base, None if staged else head, staged=staged)
    folders = skill_folders_at(repo, [base, head], skills_dir)
    changed = skills_touched(changes, skills_dir, folders)
    return RepoEdit(repo, root, base, head, project, blessed, changes, folders, changed)


@contextmanager
def export_head(edit: RepoEdit) -> Iterator[Path]:
    """The head exported for the replays (its goldens left out: base_state.unread_at_head), holding the base's
    <world>/commands.yaml in place of the head's, or none when the base has none: what a mocked command answers
    and its effect are the gate's, like the declared tools' (edit_paths.settings_changed names an edit to it)."""
    with scratch_checkout(edit.repo, edit.head, edit.project.home, skip=unread_at_head(edit.paths)) as tree:
        path = posixpath.join(posixpath.normpath(edit.paths.world), COMMANDS_FILE)
        text, target = read_file_at(edit.repo, edit.base, path), tree / path
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        target.unlink(missing_ok=True)
        if text is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        yield tree


def refuse_links_leaving(edit: RepoEdit) -> None:
    for link, target in skill_links_leaving(edit.repo, edit.head, edit.paths.skills)[:1]:
        # The export writes a link as a file, never its target; but that is not the skill under review.
        raise SkillError(leaving_link_message(target), path=f"{link}@{label(edit.head)}")


def behavioural_diff(edit: RepoEdit) -> EditDiff:
    """What the edit changes, read for the harness the replays run through (ratchet.gate.static)."""
    return EditDiff(
        base=edit.base,
        head=edit.head,
        harness=edit.project.config.harness.name,
        skills=skill_diffs(
            edit.repo,
            edit.base,
            edit.head,
            project=edit.project,
            names=edit.changed,
            changes=edit.changes,
            folders=edit.folders,
        ),
    )


def unchecked_of(edit: RepoEdit, at_base: BaseExport) -> Unchecked:
    """What the check names as not checked, for the whole edit (ratchet.gate.decide.with_unchecked)."""
    paths = edit.paths
    return Unchecked(
        settings_changed=settings_changed(edit.changes, at_base.gate, at_base.tree, at_base.config_at, paths),
        submodules_changed=submodules_under(edit.changes, paths.skills),
        # With the unowned files: notes that ride along (a score file the head adds that no check could read).
        unowned=[
            *unowned(edit.changes, paths.skills, edit.folders),
            *head_score_notes(edit.repo, edit.head, edit.changes, paths.goldens),
        ],
        nothing_blessed_at=None if edit.blessed else label(edit.base),
        evidence=evidence_changes(
            edit.repo,
            base=edit.base,
            head=edit.head,
            changes=edit.changes,
            goldens=paths.goldens,
            tasks=paths.tasks,
            changed_skills=edit.changed,
        ),
    )


# -- the base, exported, and the gate read from it ------------------------------------------------------


@dataclass(frozen=True)
class BaseExport:
    """The base state exported, the gate read from it, and the blessed goldens read straight from git."""

    tree: Path
    gate: GateConfig
    config_at: str | None
    """The repo path of a config given as a path inside the repository (base_state.config_at_base)."""
    config_file: Path | None
    """The file the gate config was read from; None for a config given as an object."""
    golden_bytes: dict[str, bytes] | None
    """The goldens by repo path (base_state.goldens_from_git); None when they were exported."""


def export_base(stack: ExitStack, edit: RepoEdit, config: GateConfig | str, exported: dict[Path, str]) -> BaseExport:
    """The base exported, leaving out what no reader opens, and the gate config read from it (docs/adr/0011)."""
    paths = edit.paths
    golden_bytes = goldens_from_git(edit.repo, edit.base, paths) if edit.blessed else None
    golden_skip = () if golden_bytes is None else (posixpath.normpath(paths.goldens),)
    world_skip = unread_at_base(paths)
    config_at = config_at_base(edit.repo, edit.base, config, edit.root)
    tree = stack.enter_context(
        scratch_checkout(edit.repo, edit.base, edit.project.home, skip=(*golden_skip, *world_skip))
    )
    exported[tree] = label(edit.base)
    gate, config_file, world_skip = _read_gate(edit, config, config_at, tree, world_skip)
    check_judge_tiers(gate, edit.project.config.tiers, source=config_file)  # before any export or replay is paid for
    for folder in (*golden_skip, *world_skip):
        if reads_inside(gate, tree, folder):
            export_tree(edit.repo, edit.base, tree, prefix=folder)  # the gate keeps fixtures or its prompt there
    return BaseExport(tree=tree, gate=gate, config_at=config_at, config_file=config_file, golden_bytes=golden_bytes)


def _read_gate(
    edit: RepoEdit, config: GateConfig | str, config_at: str | None, tree: Path, world_skip: tuple[str, ...]
) -> tuple[GateConfig, Path | None, tuple[str, ...]]:
    """The gate config (one given by name or path is read from the base's export), the file it came from, and
    the base folders still left out of the export."""
    if not isinstance(config, str):
        return config, None, world_skip
    config_file = gate_config_path(config, project_root=tree) if config_at is None else tree / config_at
    if config_at is not None:
        export_tree(edit.repo, edit.base, tree, prefix=config_at)  # it may sit in a folder left out above
    if world_skip and is_inside(config_file, tree):
        # The project's own config may keep its judge prompt anywhere in the project: all of it is exported.
        for folder in world_skip:
            export_tree(edit.repo, edit.base, tree, prefix=folder)
        world_skip = ()
    return load_gate_config(config_file, project_root=tree), config_file, world_skip
