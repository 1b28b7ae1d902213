"""ratchet/repo/ (git, trees, changes, scratch) against real temp repos: answers are right and the user's repo never changes."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ratchet.core.errors import GitStateError
from ratchet.repo.changes import changed_files, changed_skills
from ratchet.repo.git import EMPTY_TREE, INDEX, empty_tree, open_repo, repo_root, resolve_rev
from ratchet.repo.scratch import prune_stale_scratch, scratch_checkout
from ratchet.repo.trees import export_tree, read_file_at
from tests.helpers.gitrepo import (
    commit,
    git,
    git_env,
    make_repo,
    snapshot_git_state,
    stage,
    write_files,
)

BASE_FILES = {
    "README.md": "project\n",
    "skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v1\n",
    "skills/alpha/notes.txt": "notes\n",
    "skills/beta/SKILL.md": "---\nname: beta\n---\nbeta v1\n",
    "skills/gamma/SKILL.md": "---\nname: gamma\n---\ngamma v1\n",
    "tasks.yaml": "tasks: []\n",
}


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    return make_repo(tmp_path, BASE_FILES)


def files_under(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def busy_repo(tmp_path: Path) -> tuple[Path, str, str]:
    """A repo in a lived-in state: branches, a stash, a linked worktree, staged, unstaged and
    untracked changes, and a stat-dirty index that `git status` would rewrite."""
    repo = make_repo(tmp_path, BASE_FILES)
    base = git(repo, "rev-parse", "HEAD")
    head = commit(
        repo,
        {"skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v2\n", "skills/gamma/SKILL.md": None},
        "edit alpha, drop gamma",
    )
    git(repo, "branch", "feature", base)
    write_files(repo, {"README.md": "stashed change\n"})
    git(repo, "stash", "push", "-q", "-m", "wip")
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"), "feature")
    stage(repo, {"skills/beta/SKILL.md": "---\nname: beta\n---\nbeta staged\n"})
    write_files(repo, {"skills/beta/SKILL.md": "---\nname: beta\n---\nbeta unstaged\n", "scratch.txt": "untracked\n"})
    os.utime(repo / "tasks.yaml", (1_000_000_000, 1_000_000_000))  # stat-dirty, content clean
    return repo, base, head


# -- the snapshot itself is sensitive ----------------------------------------------------------


def test_snapshot_sees_an_index_refresh_by_git_status(tmp_path: Path) -> None:
    repo, _, _ = busy_repo(tmp_path)
    before = snapshot_git_state(repo)
    env = {k: v for k, v in git_env().items() if k != "GIT_OPTIONAL_LOCKS"}
    subprocess.run(["git", "status", "--porcelain"], cwd=repo, env=env, check=True, capture_output=True)
    assert snapshot_git_state(repo)["index"] != before["index"]


def test_every_read_operation_leaves_the_repo_byte_identical(tmp_path: Path) -> None:
    repo_dir, base, head = busy_repo(tmp_path)
    home = tmp_path / "home"
    before = snapshot_git_state(repo_dir)
    linked_before = snapshot_git_state(tmp_path / "linked")

    repo = open_repo(repo_dir / "skills" / "alpha")
    assert repo_root(repo) == repo_dir.resolve()
    assert resolve_rev(repo, "HEAD") == head
    assert changed_files(repo, base, head) == ["skills/alpha/SKILL.md", "skills/gamma/SKILL.md"]
    assert changed_files(repo, "HEAD", staged=True) == ["skills/beta/SKILL.md"]
    assert changed_skills(repo, base, staged=True) == ["alpha", "beta", "gamma"]
    assert read_file_at(repo, INDEX, "skills/beta/SKILL.md") == "---\nname: beta\n---\nbeta staged\n"
    assert read_file_at(repo, base, "skills/gamma/SKILL.md") is not None
    export_tree(repo, head, tmp_path / "out-head")
    export_tree(repo, INDEX, tmp_path / "out-index", prefix="skills")
    with scratch_checkout(repo, INDEX, home) as folder:
        assert (folder / "skills/beta/SKILL.md").read_text() == "---\nname: beta\n---\nbeta staged\n"
    with scratch_checkout(repo, base, home) as folder:
        assert (folder / "skills/gamma/SKILL.md").exists()
    assert changed_files(open_repo(tmp_path / "linked"), "main", "feature") == [
        "skills/alpha/SKILL.md",
        "skills/gamma/SKILL.md",
    ]

    assert snapshot_git_state(repo_dir) == before
    assert snapshot_git_state(tmp_path / "linked") == linked_before


# -- opening and resolving ---------------------------------------------------------------------


def test_open_repo_outside_a_repository_is_a_git_state_error(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(GitStateError, match="not a git repository"):
        open_repo(plain)
    with pytest.raises(GitStateError, match="no such file or directory"):
        open_repo(tmp_path / "missing")


def test_resolve_rev(repo_path: Path) -> None:
    repo = open_repo(repo_path)
    head = git(repo_path, "rev-parse", "HEAD")
    git(repo_path, "tag", "v1")
    assert resolve_rev(repo, "main") == head
    assert resolve_rev(repo, "v1") == head
    assert resolve_rev(repo, head[:8]) == head
    assert resolve_rev(repo, EMPTY_TREE) == EMPTY_TREE
    with pytest.raises(GitStateError) as info:
        resolve_rev(repo, "nope")
    assert info.value.one_line() == "unknown revision 'nope'"
    with pytest.raises(GitStateError, match="unknown revision '--all'"):
        resolve_rev(repo, "--all")


def test_empty_repository_says_so(tmp_path: Path) -> None:
    path = make_repo(tmp_path, {})
    repo = open_repo(path)
    with pytest.raises(GitStateError) as info:
        resolve_rev(repo, "HEAD")
    assert info.value.one_line() == "unknown revision 'HEAD' (the repository has no commits yet)"
    stage(path, {"skills/a/SKILL.md": "a\n"})
    assert changed_skills(repo, EMPTY_TREE, staged=True) == ["a"]


# -- what changed ------------------------------------------------------------------------------


def test_changed_files_covers_added_modified_deleted_and_both_sides_of_a_rename(repo_path: Path) -> None:
    base = git(repo_path, "rev-parse", "HEAD")
    (repo_path / "skills" / "delta").mkdir()
    git(repo_path, "mv", "skills/alpha/notes.txt", "skills/delta/notes.txt")
    head = commit(
        repo_path,
        {"skills/beta/SKILL.md": "changed\n", "tasks.yaml": None, "new dir/ünïcode file.md": "x\n"},
        "mixed",
    )
    repo = open_repo(repo_path)
    assert changed_files(repo, base, head) == [
        "new dir/ünïcode file.md",
        "skills/alpha/notes.txt",
        "skills/beta/SKILL.md",
        "skills/delta/notes.txt",
        "tasks.yaml",
    ]
    assert changed_files(repo, base) == changed_files(repo, base, "HEAD")
    assert changed_files(repo, head, head) == []
    assert changed_skills(repo, base, head) == ["alpha", "beta", "delta"]
    assert changed_skills(repo, EMPTY_TREE, base) == ["alpha", "beta", "gamma"]


def test_changed_files_staged_compares_base_with_the_index_only(repo_path: Path) -> None:
    stage(repo_path, {"skills/beta/SKILL.md": "staged\n", "skills/gamma/SKILL.md": None})
    write_files(repo_path, {"skills/alpha/SKILL.md": "unstaged only\n", "untracked.md": "u\n"})
    repo = open_repo(repo_path)
    assert changed_files(repo, "HEAD", staged=True) == ["skills/beta/SKILL.md", "skills/gamma/SKILL.md"]
    assert changed_files(repo, "HEAD", INDEX) == changed_files(repo, "HEAD", staged=True)
    assert changed_skills(repo, "HEAD", staged=True) == ["beta", "gamma"]


def test_changed_skills_honours_skills_dir_and_ignores_loose_files(repo_path: Path) -> None:
    base = git(repo_path, "rev-parse", "HEAD")
    head = commit(
        repo_path,
        {
            "skills/README.md": "loose file, not a skill\n",
            "skillsX/a/SKILL.md": "not under skills/\n",
            "bench/skills/omega/SKILL.md": "omega\n",
            "bench/skills/omega/refs/deep.md": "deep\n",
        },
        "layout",
    )
    repo = open_repo(repo_path)
    assert changed_skills(repo, base, head) == []
    assert changed_skills(repo, base, head, skills_dir="bench/skills/") == ["omega"]


def test_changed_files_with_an_unknown_revision(repo_path: Path) -> None:
    with pytest.raises(GitStateError, match="unknown revision 'origin/main'"):
        changed_files(open_repo(repo_path), "origin/main")


# -- reading and exporting trees ---------------------------------------------------------------


def test_read_file_at(repo_path: Path) -> None:
    base = git(repo_path, "rev-parse", "HEAD")
    commit(repo_path, {"skills/alpha/SKILL.md": "v2\n"}, "v2")
    stage(repo_path, {"skills/alpha/SKILL.md": "staged\n", "skills/new/SKILL.md": "new\n"})
    repo = open_repo(repo_path)
    assert read_file_at(repo, base, "skills/alpha/SKILL.md") == BASE_FILES["skills/alpha/SKILL.md"]
    assert read_file_at(repo, "HEAD", "skills/alpha/SKILL.md") == "v2\n"
    assert read_file_at(repo, INDEX, "skills/alpha/SKILL.md") == "staged\n"
    assert read_file_at(repo, INDEX, "skills/new/SKILL.md") == "new\n"
    assert read_file_at(repo, "HEAD", "skills/new/SKILL.md") is None
    assert read_file_at(repo, "HEAD", "skills/alpha") is None  # a folder is not a file
    assert read_file_at(repo, "HEAD", "skills/alpha/SKILL") is None  # no prefix matches
    assert read_file_at(repo, INDEX, "skills/alpha/SKILL") is None
    with pytest.raises(GitStateError, match="unknown revision 'nope'"):
        read_file_at(repo, "nope", "README.md")


def test_export_tree_writes_exact_bytes_modes_and_symlinks_as_files(repo_path: Path, tmp_path: Path) -> None:
    (repo_path / "bin").mkdir()
    (repo_path / "bin" / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (repo_path / "data.bin").write_bytes(bytes(range(256)) + b"\n\n")
    os.symlink("README.md", repo_path / "link.md")
    git(repo_path, "add", "-A")
    git(repo_path, "update-index", "--chmod=+x", "bin/run.sh")
    git(repo_path, "commit", "-q", "-m", "more")
    repo = open_repo(repo_path)

    out = tmp_path / "out"
    export_tree(repo, "HEAD", out)
    assert (out / "data.bin").read_bytes() == bytes(range(256)) + b"\n\n"
    assert (out / "bin" / "run.sh").stat().st_mode & stat.S_IXUSR
    assert not (out / "README.md").stat().st_mode & stat.S_IXUSR
    assert not (out / "link.md").is_symlink()
    assert (out / "link.md").read_text() == "README.md"
    assert (out / "skills/beta/SKILL.md").read_text() == BASE_FILES["skills/beta/SKILL.md"]
    assert not (out / ".git").exists()

    only = tmp_path / "only"
    export_tree(repo, "HEAD", only, prefix="skills/alpha")
    assert sorted(files_under(only)) == ["skills/alpha/SKILL.md", "skills/alpha/notes.txt"]


def test_export_tree_of_the_index_and_an_unmerged_index(repo_path: Path, tmp_path: Path) -> None:
    stage(repo_path, {"skills/beta/SKILL.md": "staged beta\n", "skills/gamma/SKILL.md": None})
    repo = open_repo(repo_path)
    export_tree(repo, INDEX, tmp_path / "idx", prefix="skills")
    assert files_under(tmp_path / "idx") == {
        "skills/alpha/SKILL.md": BASE_FILES["skills/alpha/SKILL.md"],
        "skills/alpha/notes.txt": "notes\n",
        "skills/beta/SKILL.md": "staged beta\n",
    }

    git(repo_path, "commit", "-q", "-m", "beta")
    git(repo_path, "checkout", "-q", "-b", "other", "HEAD~1")
    commit(repo_path, {"skills/beta/SKILL.md": "other beta\n"}, "other")
    merge = subprocess.run(["git", "merge", "-q", "main"], cwd=repo_path, env=git_env(), capture_output=True)
    assert merge.returncode != 0
    with pytest.raises(GitStateError, match="unmerged paths"):
        export_tree(repo, INDEX, tmp_path / "conflict")


# -- hooks' environment: GIT_DIR and GIT_INDEX_FILE --------------------------------------------


def _alternate_index(repo_path: Path, tmp_path: Path) -> Path:
    """An index file outside .git holding HEAD plus one extra staged file (like a commit's temp index)."""
    index = tmp_path / "alt-index"
    env = {"GIT_INDEX_FILE": str(index)}
    git(repo_path, "read-tree", "HEAD", env=env)
    blob = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=repo_path,
            env=git_env(),
            input=b"from the temp index\n",
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    git(repo_path, "update-index", "--add", "--cacheinfo", f"100644,{blob},skills/beta/SKILL.md", env=env)
    return index


@pytest.mark.parametrize("git_dir", ["relative", "absolute", "unset"])
def test_staged_content_comes_from_git_index_file(
    repo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, git_dir: str
) -> None:
    stage(repo_path, {"skills/alpha/SKILL.md": "in the real index\n"})
    index = _alternate_index(repo_path, tmp_path)
    before = snapshot_git_state(repo_path)
    index_bytes = index.read_bytes()
    monkeypatch.chdir(repo_path / "skills")  # hooks may run from anywhere in the tree
    if git_dir != "unset":  # `git commit` leaves GIT_DIR unset for hooks; other callers set it
        monkeypatch.setenv("GIT_DIR", "../.git" if git_dir == "relative" else str(repo_path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", os.path.relpath(index) if git_dir == "relative" else str(index))

    repo = open_repo(Path("."))
    assert changed_files(repo, "HEAD", staged=True) == ["skills/beta/SKILL.md"]
    assert read_file_at(repo, INDEX, "skills/beta/SKILL.md") == "from the temp index\n"
    assert read_file_at(repo, INDEX, "skills/alpha/SKILL.md") == BASE_FILES["skills/alpha/SKILL.md"]
    with scratch_checkout(repo, INDEX, tmp_path / "home") as folder:
        assert (folder / "skills/beta/SKILL.md").read_text() == "from the temp index\n"

    assert index.read_bytes() == index_bytes
    assert snapshot_git_state(repo_path) == before


@pytest.mark.parametrize("set_git_dir", [True, False])
def test_a_hook_s_index_does_not_leak_into_another_repository(
    repo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, set_git_dir: bool
) -> None:
    other = make_repo(tmp_path, {"skills/zeta/SKILL.md": "zeta\n"}, name="other")
    stage(other, {"skills/zeta/SKILL.md": "zeta staged\n"})
    index = _alternate_index(repo_path, tmp_path)
    monkeypatch.chdir(repo_path)
    if set_git_dir:
        monkeypatch.setenv("GIT_DIR", str(repo_path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(index))

    repo = open_repo(other)
    assert repo_root(repo) == other.resolve()
    assert changed_files(repo, "HEAD", staged=True) == ["skills/zeta/SKILL.md"]
    assert read_file_at(repo, INDEX, "skills/zeta/SKILL.md") == "zeta staged\n"
    assert changed_files(open_repo(repo_path), "HEAD", staged=True) == ["skills/beta/SKILL.md"]


def test_git_dir_with_a_separate_work_tree(repo_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moved = tmp_path / "gitdir"
    (repo_path / ".git").rename(moved)
    monkeypatch.chdir(repo_path)
    monkeypatch.setenv("GIT_DIR", str(moved))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo_path))
    repo = open_repo(Path("."))
    assert repo_root(repo) == repo_path.resolve()
    assert read_file_at(repo, INDEX, "README.md") == "project\n"


HOOK_PROBE = textwrap.dedent(
    """\
    import json, os, sys
    from pathlib import Path
    from ratchet.repo.changes import changed_files
    from ratchet.repo.git import INDEX, open_repo
    from ratchet.repo.trees import read_file_at
    repo = open_repo(Path("."))
    Path(sys.argv[1]).write_text(json.dumps({
        "staged": changed_files(repo, "HEAD", staged=True),
        "b": read_file_at(repo, INDEX, "b.txt"),
        "a": read_file_at(repo, INDEX, "a.txt"),
        "index_env": os.environ.get("GIT_INDEX_FILE", ""),
    }))
    """
)


def test_inside_a_real_pre_commit_hook_staged_means_the_commit_s_temporary_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"a.txt": "a1\n", "b.txt": "b1\n"})
    probe = tmp_path / "probe.py"
    probe.write_text(HOOK_PROBE)
    result = tmp_path / "result.json"
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{probe}' '{result}'\n")
    hook.chmod(0o755)
    stage(repo, {"a.txt": "a2 staged\n"})
    write_files(repo, {"b.txt": "b2 worktree\n"})

    # `git commit -- b.txt` commits only b.txt: the hook sees a temporary index holding HEAD + b.
    git(repo, "commit", "-q", "-m", "only b", "--", "b.txt")

    seen = json.loads(result.read_text())
    assert "next-index" in seen["index_env"]
    assert seen["staged"] == ["b.txt"]
    assert seen["b"] == "b2 worktree\n"
    assert seen["a"] == "a1\n"


# -- scratch folders and interrupts ------------------------------------------------------------


def test_scratch_checkout_exports_and_removes(repo_path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    repo = open_repo(repo_path)
    handler = signal.getsignal(signal.SIGTERM)
    with scratch_checkout(repo, "HEAD", home) as folder:
        assert folder.parent == home / "scratch"
        assert folder.name.startswith(f"{os.getpid()}-")
        assert files_under(folder) == BASE_FILES
        assert signal.getsignal(signal.SIGTERM) is not handler
    assert not folder.exists()
    assert signal.getsignal(signal.SIGTERM) is handler

    with pytest.raises(RuntimeError), scratch_checkout(repo, "HEAD", home) as folder:
        raise RuntimeError("boom")
    assert not folder.exists()
    with pytest.raises(GitStateError), scratch_checkout(repo, "nope", home):
        pass
    with scratch_checkout(repo, EMPTY_TREE, home) as folder:
        assert list(folder.iterdir()) == []
    assert list((home / "scratch").iterdir()) == []


def test_scratch_checkout_works_off_the_main_thread(repo_path: Path, tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def run() -> bool:
        with scratch_checkout(open_repo(repo_path), "HEAD", tmp_path / "home") as folder:
            return (folder / "README.md").exists()

    with ThreadPoolExecutor(max_workers=2) as pool:
        assert list(pool.map(lambda _: run(), range(4))) == [True] * 4
    assert list((tmp_path / "home" / "scratch").iterdir()) == []


SCRATCH_CHILD = textwrap.dedent(
    """\
    import sys, time
    from pathlib import Path
    from ratchet.repo.git import open_repo
    from ratchet.repo.scratch import scratch_checkout
    with scratch_checkout(open_repo(Path(sys.argv[1])), "HEAD", Path(sys.argv[2])) as folder:
        print(folder, flush=True)
        time.sleep(60)
    """
)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupted_run_leaves_no_scratch_folder(repo_path: Path, tmp_path: Path, signum: int) -> None:
    home = tmp_path / "home"
    child = subprocess.Popen(
        [sys.executable, "-c", SCRATCH_CHILD, str(repo_path), str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        folder = Path(child.stdout.readline().strip())
        assert (folder / "skills/alpha/SKILL.md").exists()
        child.send_signal(signum)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout and child.stdout.close()
        child.stderr and child.stderr.close()
    assert child.returncode != 0
    assert not folder.exists()
    assert list((home / "scratch").iterdir()) == []


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_leftovers_nobody_holds_are_pruned(repo_path: Path, tmp_path: Path) -> None:
    # The lock decides, not the PID (tests/repo/test_scratch_lock.py has the other-namespace case).
    home = tmp_path / "home"
    stale = home / "scratch" / f"{_dead_pid()}-deadbeef"
    (stale / "skills").mkdir(parents=True)
    (stale / "skills" / "x.md").write_text("left over\n")
    (home / "scratch" / f"{stale.name}.lock").touch()  # its process died: nobody holds the lock
    alive = home / "scratch" / f"{_dead_pid()}-0123abcd"
    alive.mkdir()
    held = os.open(home / "scratch" / f"{alive.name}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(held, fcntl.LOCK_EX)
    unrelated = home / "scratch" / "keep-me"
    unrelated.mkdir()

    try:
        assert prune_stale_scratch(home) == [stale]
        assert not stale.exists()
        assert alive.exists()
        assert unrelated.exists()
        assert prune_stale_scratch(tmp_path / "no-home") == []

        stale.mkdir()
        (home / "scratch" / f"{stale.name}.lock").touch()
        with scratch_checkout(open_repo(repo_path), "HEAD", home):
            assert not stale.exists()
    finally:
        os.close(held)


def test_the_empty_tree_of_a_sha256_repository_is_a_base(tmp_path: Path) -> None:
    root = tmp_path / "sha256"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", str(root)], check=True)
    repo = open_repo(root)
    empty = empty_tree(repo)
    assert len(empty) == 64 and empty != EMPTY_TREE
    assert resolve_rev(repo, empty) == empty
