"""ratchet.repo's memos and the partial export: fewer git processes, the same answers (issue 16)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ratchet.repo.git import INDEX, open_repo, resolve_rev
from ratchet.repo.scratch import scratch_checkout
from ratchet.repo.trees import export_tree, files_at, path_exists_at, read_file_at
from tests.helpers.gitrepo import commit, git, make_repo, stage

FILES = {
    "ratchet.yaml": "schema_version: 1\n",
    "skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v1\n",
    "skills/alpha/run.sh": "#!/bin/sh\necho hi\n",
    "goldens/alpha/t1.json": "{}\n",
    "goldens/alpha/t2.json": "{}\n",
    "goldensmith/keep.txt": "a sibling whose name starts like the skipped folder\n",
    "tasks.yaml": "tasks: []\n",
}


def _files(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_branch_that_moves_resolves_to_its_new_commit(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    repo = open_repo(repo_dir)
    first = resolve_rev(repo, "main")
    assert resolve_rev(repo, first) == first  # a full sha: memoised, and still itself
    second = commit(repo_dir, {"tasks.yaml": "tasks: [] # v2\n"}, "move main")
    assert resolve_rev(repo, "main") == second
    assert resolve_rev(repo, "HEAD") == second
    assert resolve_rev(repo, first) == first


def test_reads_from_a_commit_give_the_same_answers_however_often_asked(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    repo = open_repo(repo_dir)
    base = resolve_rev(repo, "HEAD")
    for _ in range(2):
        assert read_file_at(repo, base, "skills/alpha/SKILL.md") == FILES["skills/alpha/SKILL.md"]
        assert path_exists_at(repo, base, "goldens") and path_exists_at(repo, base, "skills/alpha")
        assert not path_exists_at(repo, base, "skills/alph") and not path_exists_at(repo, base, "gold")
        assert read_file_at(repo, base, "missing.txt") is None


def test_the_index_is_read_afresh_every_time(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    repo = open_repo(repo_dir)
    assert read_file_at(repo, INDEX, "tasks.yaml") == "tasks: []\n"
    stage(repo_dir, {"tasks.yaml": "tasks: [] # staged\n"})
    assert read_file_at(repo, INDEX, "tasks.yaml") == "tasks: [] # staged\n"


def test_export_can_leave_out_folders_and_keeps_everything_else(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    (repo_dir / "skills/alpha/run.sh").chmod(0o755)
    head = commit(repo_dir, {}, "executable")
    assert git(repo_dir, "ls-tree", head, "skills/alpha/run.sh").startswith("100755")
    repo = open_repo(repo_dir)
    whole, partial = tmp_path / "whole", tmp_path / "partial"
    export_tree(repo, head, whole)
    export_tree(repo, head, partial, skip=("goldens",))
    expected = {k: v for k, v in _files(whole).items() if not k.startswith("goldens/")}
    assert _files(partial) == expected
    assert "goldensmith/keep.txt" in expected and "goldens/alpha/t1.json" in _files(whole)
    assert not (partial / "goldens").exists()
    assert os.stat(partial / "skills/alpha/run.sh").st_mode & stat.S_IXUSR


def test_scratch_checkout_passes_skip_through_for_revisions_and_the_index(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    stage(repo_dir, {"skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha staged\n"})
    repo = open_repo(repo_dir)
    for rev in ("HEAD", INDEX):
        with scratch_checkout(repo, rev, tmp_path / "home", skip=("goldens",)) as folder:
            assert not (folder / "goldens").exists()
            assert (folder / "goldensmith/keep.txt").is_file() and (folder / "tasks.yaml").is_file()
        assert not folder.exists()


def test_files_under_a_folder_are_read_without_writing_them(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    repo = open_repo(repo_dir)
    assert files_at(repo, "HEAD", "goldens") == {"goldens/alpha/t1.json": b"{}\n", "goldens/alpha/t2.json": b"{}\n"}
    assert files_at(repo, "HEAD", "tasks.yaml") == {}  # a file is not a folder
    assert files_at(repo, "HEAD", "nothing") == {}


def test_a_folder_holding_a_submodule_is_not_read_as_files(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    sha = git(repo_dir, "rev-parse", "HEAD")
    git(repo_dir, "update-index", "--add", "--cacheinfo", f"160000,{sha},goldens/sub")
    git(repo_dir, "commit", "-q", "--no-verify", "-m", "a gitlink in goldens")
    assert files_at(open_repo(repo_dir), "HEAD", "goldens") is None
