"""Scratch folders are pruned by their lock, never by guessing from a PID."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.repo.git import open_repo
from ratchet.repo.scratch import prune_stale_scratch, scratch_checkout
from tests.helpers.gitrepo import make_repo

# Holds a flock on argv[1] like a live check in another PID namespace (a container sharing
# RATCHET_HOME): its folder's PID number means nothing here, or names a process that is gone.
LOCK_HOLDER = textwrap.dedent(
    """\
    import fcntl, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    print("locked", flush=True)
    time.sleep(60)
    """
)


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    return make_repo(tmp_path, {"README.md": "project\n", "skills/a/SKILL.md": "---\nname: a\n---\nbody\n"})


def test_a_live_scratch_from_another_pid_namespace_is_kept(tmp_path: Path) -> None:
    scratch = tmp_path / "home" / "scratch"
    live = scratch / f"{_dead_pid()}-0badf00d"  # its PID is dead *here*
    (live / "skills").mkdir(parents=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(scratch / f"{live.name}.lock")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert prune_stale_scratch(tmp_path / "home") == []
        assert (live / "skills").is_dir()
    finally:
        holder.kill()
        holder.wait()
        holder.stdout and holder.stdout.close()
    assert prune_stale_scratch(tmp_path / "home") == [live]  # its holder is gone: now it is stale
    assert list(scratch.iterdir()) == []


def test_a_folder_of_our_own_pid_is_pruned_once_unlocked(tmp_path: Path) -> None:
    scratch = tmp_path / "home" / "scratch"
    left = scratch / f"{os.getpid()}-0123abcd"  # same PID as a live process: PIDs say nothing
    left.mkdir(parents=True)
    (scratch / f"{left.name}.lock").touch()
    orphan_lock = scratch / "77-feedbeef.lock"  # a pruner died between the folder and its lock
    orphan_lock.touch()
    unrelated = scratch / "keep-me"
    unrelated.mkdir()
    unlocked_unknown = scratch / "123-cafebabe"  # no lock file: not made by a locking Ratchet, left alone
    unlocked_unknown.mkdir()
    assert prune_stale_scratch(tmp_path / "home") == [left]
    assert sorted(p.name for p in scratch.iterdir()) == ["123-cafebabe", "keep-me"]


def test_a_checkout_holds_its_lock_for_its_lifetime(repo_path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    with scratch_checkout(open_repo(repo_path), "HEAD", home) as folder:
        lock = folder.parent / f"{folder.name}.lock"
        fd = os.open(lock, os.O_RDONLY)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(fd)
        assert prune_stale_scratch(home) == []
        assert (folder / "README.md").exists()
        assert not (folder / f"{folder.name}.lock").exists()  # the export itself holds only the tree
    assert list((home / "scratch").iterdir()) == []


def test_scratch_under_a_work_area_that_is_a_file_is_an_input_error(repo_path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("")
    with pytest.raises(InputError, match="must be a folder"), scratch_checkout(open_repo(repo_path), "HEAD", home):
        pass


CHURN = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from ratchet.repo.git import open_repo
    from ratchet.repo.scratch import prune_stale_scratch, scratch_checkout
    repo, home = open_repo(Path(sys.argv[1])), Path(sys.argv[2])
    for _ in range(15):
        with scratch_checkout(repo, "HEAD", home) as folder:
            prune_stale_scratch(home)
            assert (folder / "README.md").read_text() == "project\\n", folder
    """
)


def test_checks_pruning_each_other_never_lose_a_live_folder(repo_path: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    procs = [
        subprocess.Popen([sys.executable, "-c", CHURN, str(repo_path), str(home)], stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    errors = [proc.communicate(timeout=120)[1] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0, 0], errors
    assert list((home / "scratch").iterdir()) == []
