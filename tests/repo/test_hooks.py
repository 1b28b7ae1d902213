"""ratchet.repo.hooks against real temp repos: installed scripts, foreign hooks, and the scripts run by git."""

from __future__ import annotations

import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from ratchet.core.errors import GitStateError
from ratchet.repo.git import EMPTY_TREE, open_repo
from ratchet.repo.hooks import hooks_dir, install_hook, render_hook
from tests.helpers.gitrepo import commit, git, git_env, make_repo, snapshot_git_state, stage

BASE_FILES = {
    "README.md": "project\n",
    "skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v1\n",
    "skills/beta/SKILL.md": "---\nname: beta\n---\nbeta v1\n",
}


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    return make_repo(tmp_path, BASE_FILES)


def test_install_hook_writes_an_executable_marked_script(repo_path: Path) -> None:
    repo = open_repo(repo_path)
    before = snapshot_git_state(repo_path)
    path = install_hook(repo, "pre-push")
    assert path == (repo_path / ".git" / "hooks" / "pre-push").resolve()
    assert path.stat().st_mode & stat.S_IXUSR
    text = path.read_text()
    assert text.startswith("#!/bin/sh\n# ratchet-hook: pre-push")
    assert 'ratchet check --base "$base" --head "$local_sha"' in text
    pre_commit = install_hook(repo, "pre-commit")
    assert 'ratchet check --base "$base" --staged' in pre_commit.read_text()
    assert install_hook(repo, "pre-push") == path  # ours: reinstall without --force

    after = snapshot_git_state(repo_path)
    changed = {k for k in after if after[k] != before[k]}
    assert changed == {"git_files"}
    git_files_before = before["git_files"]
    git_files_after = after["git_files"]
    assert isinstance(git_files_before, dict) and isinstance(git_files_after, dict)
    assert {k for k in git_files_after.keys() ^ git_files_before.keys()} == {"hooks/pre-push", "hooks/pre-commit"}


def test_install_hook_refuses_a_foreign_hook_unless_forced(repo_path: Path) -> None:
    repo = open_repo(repo_path)
    foreign = repo_path / ".git" / "hooks" / "pre-push"
    foreign.write_text("#!/bin/sh\necho mine\n")
    with pytest.raises(GitStateError, match="not written by Ratchet"):
        install_hook(repo, "pre-push")
    assert foreign.read_text() == "#!/bin/sh\necho mine\n"
    install_hook(repo, "pre-push", force=True)
    assert foreign.read_text().startswith("#!/bin/sh\n# ratchet-hook:")
    assert (foreign.parent / "pre-push.ratchet-backup").read_text() == "#!/bin/sh\necho mine\n"


def test_install_hook_respects_core_hooks_path_and_linked_worktrees(repo_path: Path, tmp_path: Path) -> None:
    git(repo_path, "config", "core.hooksPath", ".githooks")
    assert install_hook(open_repo(repo_path), "pre-commit") == (repo_path / ".githooks" / "pre-commit").resolve()
    git(repo_path, "config", "--unset", "core.hooksPath")
    git(repo_path, "worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    linked = open_repo(tmp_path / "side")
    assert hooks_dir(linked) == (repo_path / ".git" / "hooks").resolve()


@pytest.mark.parametrize("where", ["hooks-dir", "hooks-path", "hooks-path-parent"])
def test_install_hook_refuses_a_file_where_the_hooks_folder_goes(repo_path: Path, where: str) -> None:
    if where == "hooks-dir":
        shutil.rmtree(repo_path / ".git" / "hooks")
        blocker = repo_path / ".git" / "hooks"
    else:
        blocker = repo_path / "hookfile"
        git(repo_path, "config", "core.hooksPath", "hookfile" if where == "hooks-path" else "hookfile/inner")
    blocker.write_text("x\n")
    with pytest.raises(GitStateError, match="this is a file, but git keeps hooks in a folder") as caught:
        install_hook(open_repo(repo_path), "pre-push")
    assert caught.value.path == str(blocker.resolve())
    assert blocker.read_text() == "x\n"


def test_the_default_runner_reaches_this_ratchet() -> None:
    script = render_hook("pre-commit")
    runner = script[script.index("ratchet() {") : script.index("}\n") + 2]
    out = subprocess.run(["sh", "-c", runner + "ratchet --version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("ratchet ")


def _with_recording_hook(repo: Path, kind: str, log: Path, exit_code: int = 0) -> None:
    runner = f"ratchet() {{ echo \"$*\" >> '{log}'; return {exit_code}; }}\n"
    hook = repo / ".git" / "hooks" / kind
    hook.write_text(render_hook(kind, runner=runner))  # type: ignore[arg-type]
    hook.chmod(0o755)


def test_pre_push_hook_checks_each_pushed_range(repo_path: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo_path, "remote", "add", "origin", str(remote))
    git(repo_path, "push", "-q", "origin", "main")
    first = git(repo_path, "rev-parse", "HEAD")
    log = tmp_path / "calls.log"
    _with_recording_hook(repo_path, "pre-push", log)

    second = commit(repo_path, {"skills/alpha/SKILL.md": "v2\n"}, "v2")
    git(repo_path, "push", "-q", "origin", "main")
    git(repo_path, "checkout", "-q", "-b", "feature")
    third = commit(repo_path, {"skills/beta/SKILL.md": "v2\n"}, "beta")
    git(repo_path, "push", "-q", "origin", "feature")  # new branch: merge-base with origin/main
    git(repo_path, "push", "-q", "origin", ":feature")  # deletion: nothing to check
    assert log.read_text().splitlines() == [
        f"check --base {first} --head {second}",
        f"check --base {second} --head {third}",
    ]

    _with_recording_hook(repo_path, "pre-push", log, exit_code=1)
    commit(repo_path, {"skills/beta/SKILL.md": "v3\n"}, "beta v3")
    blocked = subprocess.run(
        ["git", "push", "-q", "origin", "feature"], cwd=repo_path, env=git_env(), capture_output=True
    )
    assert blocked.returncode != 0
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/main"


def test_pre_commit_hook_checks_staged_against_head_or_the_empty_tree(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {})
    log = tmp_path / "calls.log"
    _with_recording_hook(repo, "pre-commit", log)
    stage(repo, {"skills/a/SKILL.md": "a\n"})
    subprocess.run(["git", "commit", "-q", "-m", "first"], cwd=repo, env=git_env(), check=True)
    stage(repo, {"skills/a/SKILL.md": "a2\n"})
    subprocess.run(["git", "commit", "-q", "-m", "second"], cwd=repo, env=git_env(), check=True)
    assert log.read_text().splitlines() == [
        f"check --base {EMPTY_TREE} --staged",
        "check --base HEAD --staged",
    ]
