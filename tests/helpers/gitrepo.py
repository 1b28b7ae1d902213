"""Real temporary git repositories for tests.

    repo = make_repo(tmp_path, {"skills/a/SKILL.md": "..."})   # one commit on `main`
    repo = make_project(tmp_path, monkeypatch, {...})           # make_repo, cd into it, on the simulator
    sha = commit(repo, {"skills/a/SKILL.md": "new", "old.txt": None}, "edit a")  # None deletes
    stage(repo, {"skills/b/SKILL.md": "x"})                     # git add, no commit
    before = snapshot_git_state(repo); ...; assert snapshot_git_state(repo) == before

Git runs isolated from the caller's environment: no global/system config, no inherited
GIT_DIR / GIT_INDEX_FILE / GIT_WORK_TREE (tests set those on purpose to imitate hooks), and
fixed author dates so shas are reproducible.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

_REPO_ENV_VARS = (
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "GIT_CEILING_DIRECTORIES",
    "GIT_PREFIX",
)

FIXED_DATE = "2026-01-01T00:00:00+00:00"


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """A clean environment for running git in a test repo."""
    env = {k: v for k, v in os.environ.items() if k not in _REPO_ENV_VARS}
    env.update(
        {
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_AUTHOR_NAME": "Test Author",
            "GIT_AUTHOR_EMAIL": "author@example.com",
            "GIT_COMMITTER_NAME": "Test Author",
            "GIT_COMMITTER_EMAIL": "author@example.com",
            "GIT_AUTHOR_DATE": FIXED_DATE,
            "GIT_COMMITTER_DATE": FIXED_DATE,
            "GIT_TERMINAL_PROMPT": "0",
        }
    )
    if extra:
        env.update(extra)
    return env


def git(repo_path: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    """Run git in `repo_path` with a clean environment; return stdout (stripped)."""
    proc = subprocess.run(
        ["git", *args],
        cwd=repo_path,
        env=git_env(env),
        capture_output=True,
        text=True,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout.strip()


def write_files(repo_path: Path, files: dict[str, str | None]) -> None:
    """Write (or, for None, delete) files in the working tree; parent folders are created."""
    for rel, text in files.items():
        target = repo_path / rel
        if text is None:
            if target.exists() or target.is_symlink():
                target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


def make_repo(tmp_path: Path, files: dict[str, str], *, name: str = "repo", branch: str = "main") -> Path:
    """Create `tmp_path/name` as a git repo on `branch`; commit `files` if any (else no commits)."""
    repo_path = tmp_path / name
    repo_path.mkdir(parents=True)
    git(repo_path, "init", "-q", "-b", branch)
    git(repo_path, "config", "commit.gpgsign", "false")
    git(repo_path, "config", "core.autocrlf", "false")
    if files:
        commit(repo_path, dict(files), "initial")
    return repo_path


def make_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], *, home: Path | None = None
) -> Path:
    """`make_repo(tmp_path, files)` as the current folder, with RATCHET_UPSTREAM=sim (and RATCHET_HOME=home if given)."""
    repo_path = make_repo(tmp_path, files)
    monkeypatch.chdir(repo_path)
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    if home is not None:
        monkeypatch.setenv("RATCHET_HOME", str(home))
    return repo_path


def stage(repo_path: Path, files: dict[str, str | None]) -> None:
    """Write (None deletes) and `git add` the given paths without committing."""
    write_files(repo_path, files)
    git(repo_path, "add", "-A", "--", *files)


def commit(repo_path: Path, files: dict[str, str | None], message: str) -> str:
    """Write (None deletes), stage and commit the given paths; return the new commit sha."""
    stage(repo_path, files)
    git(repo_path, "commit", "-q", "--allow-empty", "--no-verify", "-m", message)
    return git(repo_path, "rev-parse", "HEAD")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tree_files(root: Path, *, skip_top: str | None) -> dict[str, tuple[int, str]]:
    """Relative path -> (mode, sha256 of bytes or link target) for every file under root."""
    found: dict[str, tuple[int, str]] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        if rel_dir == Path(".") and skip_top is not None and skip_top in dirnames:
            dirnames.remove(skip_top)
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            full = Path(dirpath) / name
            rel = (rel_dir / name).as_posix()
            st = full.lstat()
            if full.is_symlink():
                found[rel] = (st.st_mode, _digest(os.readlink(full).encode()))
            else:
                found[rel] = (st.st_mode, _digest(full.read_bytes()))
    return found


def snapshot_git_state(repo_path: Path) -> dict[str, object]:
    """Everything Ratchet promises not to change, in a comparable dict.

    Keys: worktree (file bytes and modes, .git excluded), index (bytes of the index file),
    head (HEAD file text and the commit it names), refs (every ref and its target, including
    symbolic ones), stash (the stash list), worktrees (`git worktree list --porcelain`) and
    git_files (every file under the git dir except objects/, so a stray write anywhere shows).
    """
    git_dir = Path(git(repo_path, "rev-parse", "--absolute-git-dir"))
    index = git_dir / "index"
    head_file = git_dir / "HEAD"
    return {
        "worktree": _tree_files(repo_path, skip_top=".git"),
        "index": index.read_bytes() if index.exists() else None,
        "head": (
            head_file.read_text(encoding="utf-8"),
            git(repo_path, "rev-parse", "--verify", "-q", "HEAD", check=False),
        ),
        "refs": git(repo_path, "for-each-ref", "--format=%(refname) %(objectname) %(symref)"),
        "stash": git(repo_path, "stash", "list", "--format=%H %gd %gs"),
        "worktrees": git(repo_path, "worktree", "list", "--porcelain"),
        "git_files": {
            k: v for k, v in _tree_files(git_dir, skip_top="objects").items() if not k.startswith("objects/")
        },
    }
