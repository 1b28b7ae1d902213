"""The build's scratch repository: the bench's data committed on main, and each edit on a branch of its own.

`ratchet bench build` (build.py) and `bench audit` (audit.py) replay candidate edits in it; nothing in
the project moves while they do.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import git
import yaml

from ratchet.bench.data.dataset import BenchPaths
from ratchet.bench.data.models import Edit
from ratchet.config.project import CONFIG_FILE, Project, load_project
from ratchet.repo.commits import commit_all

_AUTHOR = git.Actor("Ratchet Bench", "bench@example.com")


def _copy(source: Path, dest: Path) -> None:
    if source.is_dir():
        shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".*", "__pycache__"))
    elif source.is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, dest)


def scratch_repo(paths: BenchPaths, repo_dir: Path, home: Path, *, with_goldens: bool) -> Project:
    """A fresh git repository holding the bench's data on main; the build's own project."""
    if repo_dir.exists():
        shutil.rmtree(repo_dir)
    repo_dir.mkdir(parents=True)
    for source in (paths.skills, paths.tasks, paths.world, paths.workspaces, paths.fixtures):
        _copy(source, repo_dir / paths.rel(source))
    if with_goldens:
        _copy(paths.goldens, repo_dir / paths.rel(paths.goldens))
    config = paths.root / CONFIG_FILE
    if config.is_file():
        shutil.copy2(config, repo_dir / CONFIG_FILE)
    else:
        cfg = paths.project.config.paths
        (repo_dir / CONFIG_FILE).write_text(
            yaml.safe_dump({"schema_version": 1, "paths": cfg.model_dump()}), encoding="utf-8"
        )
    repo = git.Repo.init(repo_dir, initial_branch="main")
    commit_all(repo, "SkillRegress-Bench data", _AUTHOR)
    repo.close()
    return load_project(repo_dir, home=home)


def commit_edit(repo_dir: Path, edit: Edit, project: Project) -> str:
    """Commit `edit` on branch edit/<id> from main without touching main, the index or the tree.

    The bench runner gates each edit as base=main, head=edit/<id>. A D1 overlay goes in as a
    world file sorted last, so it is merged over the world. Plumbing over a private index file.
    """
    repo = git.Repo(repo_dir)
    scratch = Path(tempfile.mkdtemp(prefix="edit-", dir=repo_dir.parent))
    env = {
        "GIT_INDEX_FILE": str(scratch / "index"),
        "GIT_AUTHOR_NAME": _AUTHOR.name,
        "GIT_AUTHOR_EMAIL": _AUTHOR.email,
        "GIT_COMMITTER_NAME": _AUTHOR.name,
        "GIT_COMMITTER_EMAIL": _AUTHOR.email,
    }
    try:
        files = {f"{project.config.paths.skills}/{edit.skill}/SKILL.md": edit.skill_md}
        if edit.world_overlay is not None:
            files[f"{project.config.paths.world}/zz-drift-{edit.id}.yaml"] = yaml.safe_dump(
                edit.world_overlay, sort_keys=True
            )
        repo.git.read_tree("main", env=env)
        for number, (rel, text) in enumerate(sorted(files.items())):
            blob = scratch / f"blob-{number}"
            blob.write_text(text, encoding="utf-8")
            sha = repo.git.hash_object("-w", str(blob), env=env)
            repo.git.update_index("--add", "--cacheinfo", f"100644,{sha},{rel}", env=env)
        tree = repo.git.write_tree(env=env)
        commit = str(repo.git.commit_tree(tree, "-p", "main", "-m", f"bench edit {edit.id}", env=env))
        repo.git.update_ref(f"refs/heads/edit/{edit.id}", commit)
        return commit
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        repo.close()
