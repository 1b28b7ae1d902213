"""A small copy of the packaged demo, recorded and blessed through a harness: what the harness
tests gate their edits against. Recording runs twice: the two must be byte-identical."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Collection
from pathlib import Path

import git
import yaml

from ratchet.bless.record import bless, record_tasks
from ratchet.config.harness import HarnessName
from ratchet.config.project import load_project
from ratchet.data import demo_files

AUTHOR = git.Actor("Ratchet Test", "test@example.com")


def commit_all(repo: git.Repo, message: str) -> str:
    repo.git.add("-A")
    return repo.index.commit(message, author=AUTHOR, committer=AUTHOR).hexsha


def build_recorded_demo(
    root: Path,
    keep: Collection[str],
    *,
    harness: HarnessName | None = None,
    prepare: Callable[[Path], None] | None = None,
) -> str:
    """The demo with only the `keep` tasks at root (`prepare` edits it before the first commit),
    recorded twice (asserted byte-identical) and blessed through `harness`; the bless commit's sha."""
    with demo_files() as source:
        shutil.copytree(source, root, copy_function=shutil.copyfile)
    (root / ".gitignore").write_text(".ratchet/\n", encoding="utf-8")
    tasks_file = root / "tasks.yaml"
    data = yaml.safe_load(tasks_file.read_text(encoding="utf-8"))
    data["tasks"] = [task for task in data["tasks"] if task["id"] in keep]
    tasks_file.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    if prepare is not None:
        prepare(root)
    repo = git.Repo.init(root, initial_branch="main")
    commit_all(repo, "skills")
    project = load_project(root, home=root / ".ratchet").with_harness(harness)
    recorded = record_tasks(project, strict=True)
    assert recorded.errors == [] and sorted(recorded.written) == sorted(keep)
    first = {path.name: path.read_bytes() for path in project.pending_dir.glob("*.json")}
    again = record_tasks(project, strict=True)
    assert again.errors == []
    assert {path.name: path.read_bytes() for path in project.pending_dir.glob("*.json")} == first, (
        "two recordings through the same harness differ"
    )
    bless(project)
    return commit_all(repo, "bless")
