"""The pre-push and pre-commit hooks at the edges: first pushes, default branches, SHA-256, deletions.

Every push here is a real `git push` to a bare remote, so git itself feeds the hook its ref
lines; a recording runner stands in for `ratchet` and logs the arguments, except in the last
test, where the installed hook runs this venv's Ratchet on the demo repository.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Literal

import pytest

from ratchet.repo.git import EMPTY_TREE, open_repo
from ratchet.repo.hooks import HookKind, install_hook, render_hook
from ratchet.setup.demo import EDITS
from tests.helpers.gitrepo import commit, git, git_env, stage

ObjectFormat = Literal["sha1", "sha256"]


def _init(path: Path, *, branch: str = "main", object_format: ObjectFormat = "sha1", bare: bool = False) -> Path:
    git(
        path.parent,
        "init",
        "-q",
        f"--object-format={object_format}",
        "-b",
        branch,
        *(["--bare"] if bare else []),
        str(path),
    )
    if not bare:
        git(path, "config", "commit.gpgsign", "false")
    return path


def _record_calls(repo: Path, kind: HookKind, log: Path) -> None:
    hook = Path(git(repo, "rev-parse", "--absolute-git-dir")) / "hooks" / kind
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(render_hook(kind, runner=f"ratchet() {{ echo \"$*\" >> '{log}'; }}\n"))
    hook.chmod(0o755)


def _calls(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def _empty_tree(repo: Path) -> str:
    return git(repo, "hash-object", "-t", "tree", "/dev/null")


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_first_push_to_an_empty_remote_is_gated_against_the_empty_tree(
    tmp_path: Path, object_format: ObjectFormat
) -> None:
    remote = _init(tmp_path / "remote.git", object_format=object_format, bare=True)
    repo = _init(tmp_path / "repo", object_format=object_format)
    first = commit(repo, {"skills/a/SKILL.md": "a v1\n"}, "first")
    git(repo, "remote", "add", "origin", str(remote))
    log = tmp_path / "calls.log"
    _record_calls(repo, "pre-push", log)

    git(repo, "push", "-q", "origin", "main")
    empty = _empty_tree(repo)
    assert len(empty) == {"sha1": 40, "sha256": 64}[object_format]
    assert (empty == EMPTY_TREE) == (object_format == "sha1")
    # Not the local `main` itself (that gated nothing): the remote had nothing before.
    assert _calls(log) == [f"check --base {empty} --head {first}"]


def _seed_remote(tmp_path: Path, *, head: str, legacy_main: bool) -> tuple[Path, list[str]]:
    """A bare remote whose HEAD names `head`, with trunk c0-c1-c2 (and a stale main at c0)."""
    remote = _init(tmp_path / "remote.git", branch=head, bare=True)
    seed = _init(tmp_path / "seed", branch="trunk")
    shas = [commit(seed, {"skills/a/SKILL.md": f"a v{n}\n"}, f"c{n}") for n in range(3)]
    git(seed, "push", "-q", str(remote), "trunk")
    if legacy_main:
        git(seed, "push", "-q", str(remote), f"{shas[0]}:refs/heads/main")
    return remote, shas


@pytest.mark.parametrize(
    ("known_by", "remote_head", "legacy_main"),
    [
        ("clone", "trunk", True),  # refs/remotes/origin/HEAD -> origin/trunk
        ("only-branch", "trunk", False),  # `git remote add` + fetch: no origin/HEAD, one branch
        ("remote-head", "trunk", True),  # no origin/HEAD, two branches: the remote says trunk
        ("init-default-branch", "unborn", True),  # the remote's HEAD names no branch
    ],
)
def test_a_new_branch_is_gated_from_the_merge_base_with_the_remotes_default_branch(
    tmp_path: Path, known_by: str, remote_head: str, legacy_main: bool
) -> None:
    remote, (_c0, c1, _c2) = _seed_remote(tmp_path, head=remote_head, legacy_main=legacy_main)
    repo = tmp_path / "repo"
    if known_by == "clone":
        git(tmp_path, "clone", "-q", str(remote), str(repo))
        assert git(repo, "symbolic-ref", "refs/remotes/origin/HEAD") == "refs/remotes/origin/trunk"
    else:
        _init(repo, branch="scratch")
        git(repo, "remote", "add", "origin", str(remote))
        git(repo, "fetch", "-q", "origin")
        assert git(repo, "symbolic-ref", "-q", "refs/remotes/origin/HEAD", check=False) == ""
    if known_by == "init-default-branch":
        git(repo, "config", "init.defaultBranch", "trunk")
    git(repo, "checkout", "-q", "-b", "feature", c1)
    feature = commit(repo, {"skills/a/SKILL.md": "a feature\n"}, "feature")
    log = tmp_path / "calls.log"
    _record_calls(repo, "pre-push", log)

    git(repo, "push", "-q", "origin", "feature")
    assert _calls(log) == [f"check --base {c1} --head {feature}"]  # not c0 (stale main), not the empty tree


def test_a_sha256_repository_gates_updates_and_skips_deletions(tmp_path: Path) -> None:
    remote = _init(tmp_path / "remote.git", branch="trunk", object_format="sha256", bare=True)
    repo = _init(tmp_path / "repo", branch="trunk", object_format="sha256")
    git(repo, "remote", "add", "origin", str(remote))
    first = commit(repo, {"skills/a/SKILL.md": "a v1\n"}, "first")
    log = tmp_path / "calls.log"
    _record_calls(repo, "pre-push", log)

    git(repo, "push", "-q", "origin", "trunk")
    second = commit(repo, {"skills/a/SKILL.md": "a v2\n"}, "second")
    git(repo, "push", "-q", "origin", "trunk")
    git(repo, "checkout", "-q", "-b", "feature")
    third = commit(repo, {"skills/a/SKILL.md": "a v3\n"}, "third")
    git(repo, "push", "-q", "origin", "feature")
    git(repo, "push", "-q", "origin", ":feature")  # git hands the hook 64 zeros as the local sha
    assert len(second) == 64
    assert _calls(log) == [
        f"check --base {_empty_tree(repo)} --head {first}",
        f"check --base {first} --head {second}",
        f"check --base {second} --head {third}",
    ]
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/trunk"


def test_a_push_with_nothing_new_runs_no_check(tmp_path: Path) -> None:
    remote, (_, _, c2) = _seed_remote(tmp_path, head="trunk", legacy_main=False)
    repo = tmp_path / "repo"
    git(tmp_path, "clone", "-q", str(remote), str(repo))
    log = tmp_path / "calls.log"
    _record_calls(repo, "pre-push", log)

    git(repo, "push", "-q", "origin", "trunk:refs/heads/release")  # a new branch at a pushed commit
    git(repo, "tag", "-a", "-m", "v1", "v1")
    git(repo, "push", "-q", "origin", "v1")  # an annotated tag of a pushed commit
    git(repo, "tag", "notes", _blob(repo))
    git(repo, "push", "-q", "origin", "notes")  # a tag of a blob: no commit to gate
    assert _calls(log) == []
    assert git(remote, "rev-parse", "release") == c2


def _blob(repo: Path) -> str:
    return subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=repo,
        env=git_env(),
        input="notes\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


def test_the_first_commit_of_a_sha256_repository_is_gated_against_its_empty_tree(tmp_path: Path) -> None:
    repo = _init(tmp_path / "repo", object_format="sha256")
    log = tmp_path / "calls.log"
    _record_calls(repo, "pre-commit", log)
    stage(repo, {"skills/a/SKILL.md": "a\n"})
    subprocess.run(["git", "commit", "-q", "-m", "first"], cwd=repo, env=git_env(), check=True)
    assert _calls(log) == [f"check --base {_empty_tree(repo)} --staged"]
    assert len(_empty_tree(repo)) == 64


def test_the_installed_hook_gates_branches_of_a_trunk_repository_with_ratchet(demo_repo: Path, tmp_path: Path) -> None:
    """Published with `git remote add` (no origin/HEAD) from a branch not called main."""
    remote = _init(tmp_path / "remote.git", branch="trunk", bare=True)
    git(demo_repo, "branch", "-m", "main", "trunk")
    git(demo_repo, "remote", "add", "origin", str(remote))
    git(demo_repo, "push", "-q", "origin", "trunk")
    install_hook(open_repo(demo_repo), "pre-push")
    edits = {edit.branch: edit for edit in EDITS}

    def edit_branch(name: str) -> None:
        edit = edits[name]
        git(demo_repo, "checkout", "-q", "-b", name, "trunk")
        path = f"skills/{edit.skill}/SKILL.md"
        commit(demo_repo, {path: edit.apply((demo_repo / path).read_text(encoding="utf-8"))}, edit.message)

    def push(branch: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["git", "push", "-q", "origin", branch], cwd=demo_repo, env=git_env(), capture_output=True, text=True
        )

    edit_branch("edit/cosmetic")
    cosmetic = push("edit/cosmetic")
    assert cosmetic.returncode == 0, cosmetic.stdout + cosmetic.stderr
    assert "PASS" in cosmetic.stdout + cosmetic.stderr

    edit_branch("edit/new-side-effect")
    blocked = push("edit/new-side-effect")
    assert blocked.returncode != 0
    assert "BLOCK" in blocked.stdout + blocked.stderr
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/edit/cosmetic\nrefs/heads/trunk"


def test_the_installed_hook_gates_a_sha256_repository_with_ratchet(demo_repo: Path, tmp_path: Path) -> None:
    remote = _init(tmp_path / "remote.git", branch="trunk", object_format="sha256", bare=True)
    repo = _init(tmp_path / "sha256", branch="trunk", object_format="sha256")
    git(demo_repo, "archive", "-o", str(tmp_path / "demo.tar"), "HEAD")
    subprocess.run(["tar", "-xf", str(tmp_path / "demo.tar"), "-C", str(repo)], check=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the demo project")
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "origin", "trunk")
    install_hook(open_repo(repo), "pre-push")
    edit = next(edit for edit in EDITS if edit.branch == "edit/new-side-effect")
    git(repo, "checkout", "-q", "-b", edit.branch)
    path = f"skills/{edit.skill}/SKILL.md"
    commit(repo, {path: edit.apply((repo / path).read_text(encoding="utf-8"))}, edit.message)

    blocked = subprocess.run(
        ["git", "push", "-q", "origin", edit.branch], cwd=repo, env=git_env(), capture_output=True, text=True
    )
    assert blocked.returncode != 0
    assert "BLOCK" in blocked.stdout + blocked.stderr
    assert git(remote, "for-each-ref", "--format=%(refname)") == "refs/heads/trunk"
