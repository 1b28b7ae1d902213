"""An edit's behavioural diff, read from git: both revisions through ratchet.repo, nothing written to the user's tree.

What is compared comes from the base (docs/adr/0011): its ratchet.yaml names the skills folder, the
world whose declared tools' effects are read, and the harness whose view is compared, so an edit
cannot change how it is itself read. Files are read as bytes from git (ratchet.repo.trees.files_at);
only what an analyser must open as a file (a script, the base's declared tools) is exported, into
a scratch folder under Ratchet's home that is gone when this returns.
"""

from __future__ import annotations

import posixpath
from pathlib import Path, PurePosixPath

import git

from ratchet.config.harness import HarnessName
from ratchet.config.project import CONFIG_FILE, Project, project_from_text
from ratchet.core.errors import ConfigError, InputError
from ratchet.diff.effects import ToolCatalog, tool_catalog
from ratchet.diff.folder import diff_skill_folder
from ratchet.diff.models import EditDiff, SkillDiff
from ratchet.diff.scripts import Analysers
from ratchet.repo.changes import ChangedPath, changed_paths, skills_touched
from ratchet.repo.git import INDEX, open_repo, repo_root, resolve_rev, resolve_revs
from ratchet.repo.scratch import scratch_folder
from ratchet.repo.skill_folders import skill_folders_at
from ratchet.repo.trees import blobs_read_once, export_tree, files_at, path_exists_at, read_file_at
from ratchet.world.state import DECLARED_TOOLS_FOLDER


def diff_revisions(
    path: Path,
    *,
    base: str,
    head: str | None = None,
    staged: bool = False,
    harness: HarnessName | None = None,
    home: Path | None = None,
    analysers: Analysers | None = None,
) -> EditDiff:
    """The behavioural diff of every skill folder changed between `base` and `head` (or the index, `staged`).

    `harness` replaces the base's `harness:` (`--harness`); `analysers` defaults to what is installed.
    """
    repo = open_repo(path)
    root = repo_root(repo)
    base_sha, head_rev = (resolve_rev(repo, base), INDEX) if staged else resolve_revs(repo, [base, head or "HEAD"])
    with blobs_read_once(repo, [base_sha, head_rev]):
        config_text = read_file_at(repo, base_sha, CONFIG_FILE, error=ConfigError)
        project = project_from_text(
            root, config_text, source=f"{CONFIG_FILE}@{_label(base_sha)}", home=home
        ).with_harness(harness)
        skills_dir = project.config.paths.skills
        changes = changed_paths(repo, base_sha, None if staged else head_rev, staged=staged)
        folders = skill_folders_at(repo, [base_sha, head_rev], skills_dir)
        names = skills_touched(changes, skills_dir, folders)
        diff = EditDiff(base=base_sha, head=head_rev, harness=project.config.harness.name)
        if names:
            diff.skills.extend(
                skill_diffs(
                    repo,
                    base_sha,
                    head_rev,
                    project=project,
                    names=names,
                    changes=changes,
                    folders=folders,
                    analysers=analysers,
                )
            )
    return diff


def skill_diffs(
    repo: git.Repo,
    base_sha: str,
    head_rev: str,
    *,
    project: Project,
    names: list[str],
    changes: list[ChangedPath],
    folders: set[str],
    analysers: Analysers | None = None,
) -> list[SkillDiff]:
    """The SkillDiff of each changed skill `names` (skills_touched), read for the project's harness.

    `project` is the base's (its skills folder, world and harness); `changes` and `folders` are what
    changed_paths and skill_folders_at say of the two revisions. What a check reads before replaying.
    """
    found: list[SkillDiff] = []
    with scratch_folder(project.home) as scratch:
        catalog = _catalog(repo, base_sha, project, scratch)
        chosen = analysers or Analysers.installed()
        for name in names:
            folder = _folder_of(name, changes, project.config.paths.skills, folders)
            found.append(
                diff_skill_folder(
                    skill=name,
                    folder=folder,
                    base=files_at(repo, base_sha, folder) or {},
                    head=files_at(repo, head_rev, folder) or {},
                    harness=project.config.harness.name,
                    catalog=catalog,
                    analysers=chosen,
                    scratch=scratch / name,
                )
            )
    return found


def _label(rev: str) -> str:
    return rev if rev == INDEX else rev[:10]


def _folder_of(name: str, changes: list[ChangedPath], skills_dir: str, folders: set[str]) -> str:
    """The repo path of skill `name`'s folder: the deepest skill folder of that name holding a changed path."""
    paths = [change.path for change in changes]
    owned = sorted(
        (
            folder
            for folder in folders
            if PurePosixPath(folder).name == name and any(path.startswith(folder + "/") for path in paths)
        ),
        key=len,
        reverse=True,
    )
    if owned:
        return owned[0]
    return posixpath.join(posixpath.normpath(skills_dir), name)


def _catalog(repo: git.Repo, base_sha: str, project: Project, scratch: Path) -> ToolCatalog:
    """The shipped tools and the base's declared tools (<world>/tools/*.yaml), each with its effect."""
    folder = posixpath.join(posixpath.normpath(project.config.paths.world), DECLARED_TOOLS_FOLDER)
    if not path_exists_at(repo, base_sha, folder):
        return tool_catalog()
    # Imported here, as ratchet.world.state does: a world without tools/ never loads the declared-tool models.
    from ratchet.world.tools.declared import load_declared_tools

    tree = scratch / "base-world"
    export_tree(repo, base_sha, tree, prefix=folder)
    try:
        declared = load_declared_tools(tree / project.config.paths.world)
    except InputError as exc:
        # Named as the user can open it: <repo path>@<revision>, never the scratch folder.
        where = exc.path
        if where is not None and where.startswith(str(tree)):
            where = f"{Path(where).relative_to(tree).as_posix()}@{_label(base_sha)}"
        raise type(exc)(exc.message, path=where, line=exc.line) from None
    return tool_catalog(declared)
