"""A team's first push to a new remote through the pre-push hook, and what a stopped push says next.

With no remote ref to compare with, the pushed commits are gated against the empty tree: nothing
is blessed there, so the verdict is WARN "nothing is blessed at ..." and the push goes through,
whatever the pushed commit adds (ratchet.yaml, skills, their goldens). The hook says why in one
line. When the hook does stop a push, it says how to go on.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from ratchet.repo.git import EMPTY_TREE, open_repo
from ratchet.repo.hooks import install_hook, render_hook
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git, git_env


def _bare(path: Path) -> Path:
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    return path


def _push(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "push", "-q", *args], cwd=repo, env=git_env(), capture_output=True, text=True)


def test_a_first_push_to_a_new_remote_warns_that_nothing_is_blessed_and_goes_through(
    demo_repo: Path, tmp_path: Path
) -> None:
    remote = _bare(tmp_path / "remote.git")
    git(demo_repo, "remote", "add", "origin", str(remote))
    install_hook(open_repo(demo_repo), "pre-push")
    head = git(demo_repo, "rev-parse", "HEAD")
    assert git(demo_repo, "ls-files", "goldens").count(".json") == 23  # the push carries the goldens

    pushed = _push(demo_repo, "origin", "main")

    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    assert pushed.stderr.splitlines()[0] == (
        "ratchet: origin has no commit to compare refs/heads/main with (a first push, or origin not fetched: "
        "git fetch origin): it is checked against the empty tree, where nothing is blessed"
    )
    output = " ".join((pushed.stdout + pushed.stderr).split())  # the verdict wraps at the terminal width
    assert f"WARN nothing is blessed at {EMPTY_TREE[:10]}: no golden to replay;" in output
    assert "no golden exercises" not in output  # the goldens are in the push; the base has none
    assert "BLOCK" not in output
    assert git(remote, "rev-parse", "refs/heads/main") == head


def test_a_push_the_hook_stops_says_how_to_go_on(tmp_path: Path) -> None:
    remote = _bare(tmp_path / "remote.git")
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    commit(repo, {"skills/a/SKILL.md": "a\n"}, "first")
    git(repo, "remote", "add", "origin", str(remote))
    hook = Path(git(repo, "rev-parse", "--absolute-git-dir")) / "hooks" / "pre-push"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(render_hook("pre-push", runner="ratchet() { echo 'BLOCK  stand-in verdict'; return 1; }\n"))
    hook.chmod(0o755)

    stopped = _push(repo, "origin", "main")

    assert stopped.returncode != 0
    assert stopped.stdout == "BLOCK  stand-in verdict\n"
    assert stopped.stderr.splitlines()[1] == (
        "ratchet: push of refs/heads/main stopped (ratchet check exited 1): fix what the check names and push "
        "again, or push without the gate: git push --no-verify"
    )
    assert git(remote, "for-each-ref") == ""


def test_a_blocked_edit_on_an_existing_remote_says_how_to_go_on_and_no_first_push_line(
    demo_repo: Path, tmp_path: Path
) -> None:
    remote = _bare(tmp_path / "remote.git")
    git(demo_repo, "remote", "add", "origin", str(remote))
    git(demo_repo, "push", "-q", "origin", "main")  # before the hook: the remote holds the blessed main
    install_hook(open_repo(demo_repo), "pre-push")
    edit = next(edit for edit in EDITS if edit.branch == "edit/new-side-effect")
    git(demo_repo, "checkout", "-q", "-b", edit.branch)
    path = f"skills/{edit.skill}/SKILL.md"
    commit(demo_repo, {path: edit.apply((demo_repo / path).read_text(encoding="utf-8"))}, edit.message)

    blocked = _push(demo_repo, "origin", "edit/new-side-effect")

    assert blocked.returncode == 1
    assert "BLOCK" in blocked.stdout + blocked.stderr
    assert "first push" not in blocked.stderr
    assert blocked.stderr.splitlines()[-2] == (
        "ratchet: push of refs/heads/edit/new-side-effect stopped (ratchet check exited 1): fix what the check "
        "names and push again, or push without the gate: git push --no-verify"
    )
