"""Revisions resolve as git resolves them, and an error quotes the revision as it was typed.

Any syntax naming one commit works (`:/text` searches commit messages, `rev^{/text}`, `@{-1}` ...);
a range (`A..B`, `A...B`, `rev^!`, `rev^@`, `^rev`) names several commits and is refused in one
line that quotes what was typed, never the commit ids git expanded it to.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ratchet.core.errors import GitStateError
from ratchet.repo.git import open_repo, resolve_rev, resolve_revs
from tests.helpers.gitrepo import commit, git, make_repo

SHA = re.compile(r"[0-9a-f]{40}")


@pytest.fixture
def repo_path(tmp_path: Path) -> Path:
    """main: initial, "Bless goldens", "edit the skill"; a branch `side` at "Bless goldens" was checked out last."""
    path = make_repo(tmp_path, {"README.md": "project\n"})
    commit(path, {"goldens/a.json": "{}\n"}, "Bless goldens")
    git(path, "checkout", "-q", "-b", "side")
    git(path, "checkout", "-q", "main")
    commit(path, {"skills/a/SKILL.md": "a\n"}, "edit the skill")
    return path


@pytest.mark.parametrize("rev", [":/Bless", ":/^Bless", ":/!-edit", "HEAD^{/Bless}", "@{-1}", "main~1", "side"])
def test_a_revision_naming_one_commit_resolves_as_git_resolves_it(repo_path: Path, rev: str) -> None:
    blessed = git(repo_path, "rev-parse", "side")
    assert git(repo_path, "rev-parse", "--verify", rev) == blessed
    repo = open_repo(repo_path)
    assert resolve_rev(repo, rev) == blessed
    assert resolve_revs(repo, [rev, "HEAD"]) == [blessed, git(repo_path, "rev-parse", "HEAD")]


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        (":/no such message", "unknown revision ':/no such message'"),
        ("main^{tree}", "revision 'main^{tree}' names a tree or a file, not a commit"),
        ("main:README.md", "revision 'main:README.md' names a tree or a file, not a commit"),
    ],
)
def test_a_revision_naming_no_commit_is_quoted(repo_path: Path, rev: str, message: str) -> None:
    with pytest.raises(GitStateError) as info:
        resolve_rev(open_repo(repo_path), rev)
    assert info.value.one_line() == message


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        (
            "main~1..main",
            "revision 'main~1..main' is a range, not one commit: for a range A..B pass --base A --head B "
            "(here --base main~1 --head main)",
        ),
        (
            "side..",
            "revision 'side..' is a range, not one commit: for a range A..B pass --base A --head B "
            "(here --base side --head HEAD)",
        ),
        ("side...main", "revision 'side...main' is a range, not one commit: name a single commit"),
        ("main^!", "revision 'main^!' is a range, not one commit: name a single commit"),
        ("main^@", "revision 'main^@' is a range, not one commit: name a single commit"),
        ("^side", "revision '^side' is a range, not one commit: name a single commit"),
        ("nope..main", "unknown revision 'nope..main'"),
    ],
    ids=["two-dots", "open-right", "three-dots", "commit-only", "parents", "negative", "unknown-side"],
)
def test_a_range_is_refused_quoting_what_was_typed(repo_path: Path, rev: str, message: str) -> None:
    repo = open_repo(repo_path)
    for resolve in (lambda: resolve_rev(repo, rev), lambda: resolve_revs(repo, [rev, "HEAD"])):
        with pytest.raises(GitStateError) as info:
            resolve()
        assert info.value.one_line() == message
        assert SHA.search(info.value.one_line()) is None
