"""Gitlinks (submodules, mode 160000): a changed one is a change, whatever .gitmodules says."""

from __future__ import annotations

from pathlib import Path

from ratchet.repo.changes import changed_paths, changed_skills, submodules_under
from ratchet.repo.git import open_repo
from tests.helpers.gitrepo import commit, git, make_repo


def _gitlink(repo: Path, path: str, sha: str, *, staged_only: bool = False) -> str:
    git(repo, "update-index", "--add", "--cacheinfo", f"160000,{sha},{path}")
    if not staged_only:
        git(repo, "commit", "-qm", f"gitlink {path}")
    return git(repo, "rev-parse", "HEAD")


def test_a_skill_that_is_a_submodule_counts_as_changed(tmp_path: Path) -> None:
    path = make_repo(tmp_path, {"skills/a/SKILL.md": "a\n"})
    first = git(path, "rev-parse", "HEAD")
    base = _gitlink(path, "skills/b", first)
    head = _gitlink(path, "skills/b", base)
    repo = open_repo(path)
    assert changed_skills(repo, base, head) == ["b"]
    assert submodules_under(changed_paths(repo, base, head), "skills") == ["skills/b"]


def test_a_submodule_inside_a_skill_is_seen_even_when_gitmodules_ignores_it(tmp_path: Path) -> None:
    path = make_repo(tmp_path, {"skills/a/SKILL.md": "a\n"})
    first = git(path, "rev-parse", "HEAD")
    _gitlink(path, "skills/a/vendor", first)
    git(path, "config", "diff.ignoreSubmodules", "all")
    base = commit(
        path, {".gitmodules": '[submodule "v"]\n\tpath = skills/a/vendor\n\turl = ./x\n\tignore = all\n'}, "gm"
    )
    _gitlink(path, "skills/a/vendor", base, staged_only=True)  # `git commit` itself would skip it
    repo = open_repo(path)
    changes = changed_paths(repo, base, staged=True)
    assert changed_skills(repo, base, staged=True) == ["a"]
    assert submodules_under(changes, "skills") == ["skills/a/vendor"]
    assert submodules_under(changes, "elsewhere") == []
