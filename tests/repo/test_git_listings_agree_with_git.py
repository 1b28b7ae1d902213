"""ratchet.repo answers with fewer git processes, and the same answers as the processes it spares (issue 16)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ratchet.core.errors import GitStateError
from ratchet.repo.changes import ChangedPath, changed_paths
from ratchet.repo.git import INDEX, _git, open_repo, resolve_rev, resolve_revs
from ratchet.repo.trees import blobs_read_once, export_tree, files_at, read_file_at
from tests.helpers.gitrepo import commit, git, make_repo, stage

FILES = {
    "ratchet.yaml": "schema_version: 1\n",
    "skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v1\n",
    "skills/alpha/run.sh": "#!/bin/sh\necho hi\n",
    "skills/beta/SKILL.md": "---\nname: beta\n---\nbeta v1\n",
    "goldens/alpha/t1.json": "{}\n",
    "notes/a": "a file that becomes a folder\n",
    "tasks.yaml": "tasks: []\n",
}


def _diff_tree(repo_dir: Path, base: str, head: str) -> list[ChangedPath]:
    """What changed_paths answered before it read the listings: git's own raw diff."""
    repo = open_repo(repo_dir)
    out = _git(repo, "diff-tree", "-r", "-z", "--no-renames", "--ignore-submodules=none", base, head, "--")
    fields = [item.decode() for item in out.split(b"\0") if item]
    changes = {
        path: ChangedPath(path, *meta.lstrip(":").split(" ")[:2])
        for meta, path in zip(fields[0::2], fields[1::2], strict=True)
    }
    return [changes[path] for path in sorted(changes)]


def _logged_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `git` first on PATH that logs its first argument, then runs the real one."""
    real = next(Path(d) / "git" for d in os.environ["PATH"].split(os.pathsep) if (Path(d) / "git").is_file())
    bin_dir, log = tmp_path / "bin", tmp_path / "git.log"
    bin_dir.mkdir()
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_changes_read_from_the_listings_are_what_diff_tree_says(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    base = git(repo_dir, "rev-parse", "HEAD")
    (repo_dir / "skills/alpha/run.sh").chmod(0o755)  # a mode change, nothing else
    os.symlink("SKILL.md", repo_dir / "skills/beta/link")  # a symlink added
    git(repo_dir, "add", "-A")
    head = commit(
        repo_dir,
        {
            "skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v2\n",  # changed
            "tasks.yaml": None,  # deleted
            "notes/a": None,
            "notes/a/inner.txt": "now a folder\n",  # a file replaced by a folder
            "skills/gamma/SKILL.md": "---\nname: gamma\n---\nnew\n",  # added
        },
        "every kind of change",
    )
    expected = _diff_tree(repo_dir, base, head)
    assert {c.path for c in expected} >= {
        "skills/alpha/run.sh",
        "skills/beta/link",
        "tasks.yaml",
        "notes/a",
        "notes/a/inner.txt",
        "skills/gamma/SKILL.md",
        "skills/alpha/SKILL.md",
    }
    repo = open_repo(repo_dir)
    assert changed_paths(repo, base, head) == expected
    assert changed_paths(repo, head, base) == _diff_tree(repo_dir, head, base)
    assert changed_paths(repo, base, base) == []


def test_a_moved_submodule_is_one_changed_gitlink_as_diff_tree_says(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    base = git(repo_dir, "rev-parse", "HEAD")
    git(repo_dir, "update-index", "--add", "--cacheinfo", f"160000,{base},skills/sub")
    git(repo_dir, "commit", "-q", "-m", "a submodule")
    first = git(repo_dir, "rev-parse", "HEAD")
    git(repo_dir, "update-index", "--cacheinfo", f"160000,{first},skills/sub")
    git(repo_dir, "commit", "-q", "-m", "the submodule moves")
    head = git(repo_dir, "rev-parse", "HEAD")
    repo = open_repo(repo_dir)
    assert (
        changed_paths(repo, first, head)
        == _diff_tree(repo_dir, first, head)
        == [ChangedPath("skills/sub", "160000", "160000")]
    )
    assert changed_paths(repo, base, head) == _diff_tree(repo_dir, base, head)


def test_names_resolve_in_one_process_to_what_each_resolves_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    first = git(repo_dir, "rev-parse", "HEAD")
    git(repo_dir, "branch", "edit")
    second = commit(repo_dir, {"tasks.yaml": "tasks: [] # v2\n"}, "main moves")
    repo = open_repo(repo_dir)
    log = _logged_git(tmp_path, monkeypatch)
    assert resolve_revs(repo, ["main", "edit", "main"]) == [second, first, second]
    assert log.read_text(encoding="utf-8").split() == ["rev-parse"]
    assert resolve_revs(repo, [first, "edit"]) == [first, first]  # one name: resolve_rev's own call


def _outcome(resolve: Callable[[], object]) -> object:
    try:
        return resolve()
    except GitStateError as exc:
        return f"GitStateError: {exc.one_line()}"


@pytest.mark.parametrize("odd", ["nosuch", "main..edit", "^main", "-x", "HEAD:tasks.yaml", "edit~1"])
def test_a_name_one_process_cannot_answer_resolves_or_fails_as_resolve_rev_does(tmp_path: Path, odd: str) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    git(repo_dir, "branch", "edit")
    commit(repo_dir, {"tasks.yaml": "tasks: [] # v2\n"}, "main moves")
    repo = open_repo(repo_dir)
    alone = _outcome(lambda: [resolve_rev(repo, "main"), resolve_rev(repo, odd)])
    assert _outcome(lambda: resolve_revs(repo, ["main", odd])) == alone


def test_reads_inside_blobs_read_once_take_no_git_process_and_give_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    base = git(repo_dir, "rev-parse", "HEAD")
    head = commit(repo_dir, {"skills/alpha/SKILL.md": "---\nname: alpha\n---\nalpha v2\n"}, "edit")
    repo = open_repo(repo_dir)
    plain, once = tmp_path / "plain", tmp_path / "once"
    export_tree(repo, head, plain)
    expected = (read_file_at(repo, base, "skills/alpha/SKILL.md"), files_at(repo, base, "goldens"))
    log = _logged_git(tmp_path, monkeypatch)
    with blobs_read_once(repo, [base, head]):
        read = (read_file_at(repo, base, "skills/alpha/SKILL.md"), files_at(repo, base, "goldens"))
        export_tree(repo, head, once)
    assert read == expected
    assert sorted(p.relative_to(once) for p in once.rglob("*")) == sorted(
        p.relative_to(plain) for p in plain.rglob("*")
    )
    assert (once / "skills/alpha/SKILL.md").read_bytes() == (plain / "skills/alpha/SKILL.md").read_bytes()
    assert log.read_text(encoding="utf-8").split() == ["cat-file"]  # the listings were already known
    log.write_text("", encoding="utf-8")
    read_file_at(repo, base, "tasks.yaml")  # outside: read again
    assert log.read_text(encoding="utf-8").split() == ["cat-file"]


def test_blobs_read_once_over_the_index_sees_what_is_staged(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    stage(repo_dir, {"tasks.yaml": "tasks: [] # staged\n"})
    repo = open_repo(repo_dir)
    with blobs_read_once(repo, [INDEX]):
        assert read_file_at(repo, INDEX, "tasks.yaml") == "tasks: [] # staged\n"
        stage(repo_dir, {"tasks.yaml": "tasks: [] # staged again\n"})
        assert read_file_at(repo, INDEX, "tasks.yaml") == "tasks: [] # staged again\n"  # the index is asked afresh


def test_a_failed_read_once_leaves_each_read_to_fail_on_its_own(tmp_path: Path) -> None:
    repo_dir = make_repo(tmp_path, FILES)
    repo = open_repo(repo_dir)
    with blobs_read_once(repo, ["nosuch"]):  # nothing held; no error here
        assert read_file_at(repo, "HEAD", "tasks.yaml") == "tasks: []\n"
        with pytest.raises(GitStateError, match="unknown revision 'nosuch'"):
            read_file_at(repo, "nosuch", "tasks.yaml")
