"""Git access that never changes the user's repository: running git, opening a repository, resolving revisions.

Everything in ratchet/repo/ reads through plumbing (rev-parse, diff-index --cached, ls-tree,
ls-files --stage, cat-file) with GIT_OPTIONAL_LOCKS=0, so the working tree, index, HEAD,
refs, stash and worktree list stay byte-identical. The "scratch worktree" is an export of a
tree into a folder under Ratchet's home, not `git worktree add` (docs/adr/0003-scratch-export.md):
`export_tree` in ratchet/repo/trees.py, the folders' lifetime in ratchet/repo/scratch.py. Reading trees
and blobs is ratchet/repo/trees.py; what changed between two states, ratchet/repo/changes.py; the skill
folders of a tree, ratchet/repo/skill_folders.py.

Hooks run with GIT_DIR and GIT_INDEX_FILE set; during `git commit` the index may be a
temporary one, and "staged" must mean what is in *that* index. Every command gets an explicit
environment built by `_git_env` so the answer never depends on which repository the
surrounding environment happens to point at.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

import git

from ratchet.core.errors import GitStateError

INDEX = "<index>"
"""Sentinel revision meaning "the staged content" (the index git would commit)."""

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""The SHA-1 empty tree: a valid base for "everything is new" (a branch with no merge-base)."""


# -- running git ---------------------------------------------------------------------------


def _abspath(value: str) -> str:
    return os.path.abspath(value)  # relative GIT_* paths are relative to our cwd (the hook's)


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _ambient_git_dir() -> str | None:
    """The repository a plain `git` would use here: GIT_DIR, else discovered from the cwd."""
    env_dir = os.environ.get("GIT_DIR")
    if env_dir:
        return _abspath(env_dir)
    try:
        return _abspath(str(git.Repo(os.getcwd(), search_parent_directories=True).git_dir))
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, OSError):
        return None


def _git_env(repo: git.Repo) -> dict[str, str]:
    """The environment for every git command: this repo, the right index, no optional locks."""
    git_dir = _abspath(str(repo.git_dir))
    env = {"GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "GIT_DIR": git_dir}
    if repo.working_tree_dir is not None:
        env["GIT_WORK_TREE"] = _abspath(str(repo.working_tree_dir))
    env["GIT_INDEX_FILE"] = os.path.join(git_dir, "index")
    inherited_index = os.environ.get("GIT_INDEX_FILE")
    if inherited_index:
        # A hook's GIT_INDEX_FILE (a temporary index during `git commit -- <paths>`, maybe a
        # relative path) belongs to the repository git itself would use from here; any other
        # repository (a scratch clone opened from inside a hook) is read with its own index.
        ambient = _ambient_git_dir()
        if ambient is not None and _same_dir(ambient, git_dir):
            env["GIT_INDEX_FILE"] = _abspath(inherited_index)
    return env


def _git(repo: git.Repo, *args: str, stdin: bytes | None = None, ok_codes: Sequence[int] = (0,)) -> bytes:
    """Run one read-only git command and return its raw stdout."""
    status, out, err = _git_status(repo, *args, stdin=stdin)
    if status not in ok_codes:
        message = err.decode("utf-8", "replace")
        first = next((line for line in message.splitlines() if line.strip()), f"exit {status}")
        raise GitStateError(f"git {args[0]} failed: {first.strip()}")
    return out


def _git_status(repo: git.Repo, *args: str, stdin: bytes | None = None) -> tuple[int, bytes, bytes]:
    """Run one read-only git command: its exit status, stdout and stderr, whatever the status."""
    with tempfile.TemporaryFile() as feed:
        if stdin is not None:
            feed.write(stdin)
            feed.seek(0)
        try:
            status, out, err = repo.git.execute(
                ["git", *args],
                istream=feed,
                with_extended_output=True,
                with_exceptions=False,
                stdout_as_string=False,
                strip_newline_in_stdout=False,
                env=_git_env(repo),
            )
        except git.GitCommandNotFound as exc:
            raise GitStateError("git is not installed or not on PATH") from exc
    assert isinstance(out, bytes)
    return status, out, err if isinstance(err, bytes) else str(err).encode()


def _z_fields(output: bytes) -> list[str]:
    return [item.decode("utf-8", "surrogateescape") for item in output.split(b"\0") if item]


# -- opening and resolving -----------------------------------------------------------------


def open_repo(path: Path) -> git.Repo:
    """Open the repository containing `path` (searching parent directories)."""
    target = Path(path).expanduser().resolve()
    if not target.exists():
        raise GitStateError("no such file or directory", path=target)
    try:
        return git.Repo(target, search_parent_directories=True, expand_vars=False)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError) as exc:
        if os.environ.get("GIT_DIR"):
            # `git --git-dir=... --work-tree=...` hooks: the work tree need not contain a .git
            try:
                return git.Repo(expand_vars=False)
            except (git.InvalidGitRepositoryError, git.NoSuchPathError):
                pass
        raise GitStateError(
            "not a git repository (or any parent); run inside a repo or pass --repo", path=target
        ) from exc


def repo_root(repo: git.Repo) -> Path:
    """The top of the working tree."""
    if repo.working_tree_dir is None:
        raise GitStateError("bare repository has no working tree", path=str(repo.git_dir))
    return Path(repo.working_tree_dir).resolve()


def _has_commits(repo: git.Repo) -> bool:
    out = _git(repo, "rev-parse", "--verify", "--quiet", "HEAD^{commit}", ok_codes=(0, 1))
    return bool(out.strip())


# -- memos of what cannot change --------------------------------------------------------------
#
# A check asks the same questions many times (what commit is this sha, what is in its tree); each
# answer is one git process. Only answers fixed by content are kept: the empty tree of a
# repository's object format, the commit a full object id peels to, and a commit's file listing.
# A name (a branch, HEAD) and the index are asked afresh every time, so a moved ref is never stale.
# Keys carry the git dir's inode, so a repository re-created at the same path starts empty. The
# listings are kept beside the code that reads them (ratchet/repo/trees.py), under the same lock.

_EMPTY_TREE_SHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
"""The empty tree of a SHA-256 repository: the only other id resolve_rev passes through."""
_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_COMMITS_KEPT = 4096
_memo_lock = threading.Lock()
_empty_trees: dict[tuple[str, int], str] = {}
_commits: dict[tuple[str, int, str], str] = {}


def _repo_key(repo: git.Repo) -> tuple[str, int]:
    git_dir = _abspath(str(repo.git_dir))
    try:
        return git_dir, os.stat(git_dir).st_ino
    except OSError:
        return git_dir, -1


def empty_tree(repo: git.Repo) -> str:
    """The id of the empty tree in this repository's object format (SHA-1 or SHA-256)."""
    key = _repo_key(repo)
    with _memo_lock:
        known = _empty_trees.get(key)
    if known is None:
        known = _git(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()
        with _memo_lock:
            _empty_trees[key] = known
    return known


def resolve_rev(repo: git.Repo, rev: str) -> str:
    """Full sha of the commit `rev` names.

    The repository's empty tree (EMPTY_TREE in a SHA-1 repository, its SHA-256 twin otherwise) is
    passed through unchanged: it is the base hooks use when nothing came before (the first commit,
    a first push), and every reader here accepts it.
    """
    if rev == EMPTY_TREE or (rev == _EMPTY_TREE_SHA256 and rev == empty_tree(repo)):
        return rev
    key = (*_repo_key(repo), rev)
    if _FULL_ID.fullmatch(rev) is not None:  # a commit id names nothing that can move: its answer is kept
        with _memo_lock:
            known = _commits.get(key)
        if known is not None:
            return known
    if not rev or rev.startswith("-") or rev == INDEX:
        raise GitStateError(f"unknown revision '{rev}'")
    # `:/text` finds a commit by its message, and a suffix would become part of the text searched for.
    asked = rev if rev.startswith(":/") else f"{rev}^{{commit}}"
    status, answer = _rev_parse(repo, asked)
    if status == 0 and len(answer) == 1 and _FULL_ID.fullmatch(answer[0]) is not None:
        _remember_commit(key[:2], answer[0])
        return answer[0]
    if not answer and asked != rev:  # some ranges (A.., rev^!) take no suffix: ask for the revision as typed
        status, answer = _rev_parse(repo, rev)
        if status == 0 and len(answer) == 1 and _FULL_ID.fullmatch(answer[0]) is not None:
            raise GitStateError(f"revision '{rev}' names a tree or a file, not a commit")
    if answer:  # git expanded a range (A..B, A...B, rev^!, rev^@, ^rev) into its commits
        raise GitStateError(_range_refusal(rev))
    hint = " (the repository has no commits yet)" if not _has_commits(repo) else ""
    raise GitStateError(f"unknown revision '{rev}'{hint}")


def _rev_parse(repo: git.Repo, rev: str) -> tuple[int, list[str]]:
    """`git rev-parse --verify` of one revision: its status and what it printed (a range prints its commits)."""
    status, out, _err = _git_status(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", rev)
    return status, out.decode().split()


def _range_refusal(rev: str) -> str:
    """The one line refusing a range where one commit is wanted, quoting it as typed."""
    left, dots, right = rev.partition("..")
    if dots and not right.startswith(".") and not left.startswith("^"):
        return (
            f"revision '{rev}' is a range, not one commit: for a range A..B pass --base A --head B "
            f"(here --base {left or 'HEAD'} --head {right or 'HEAD'})"
        )
    return f"revision '{rev}' is a range, not one commit: name a single commit"


def _remember_commit(repo_key: tuple[str, int], sha: str) -> None:
    if _FULL_ID.fullmatch(sha) is not None:
        with _memo_lock:
            if len(_commits) > _COMMITS_KEPT:
                _commits.clear()  # a long bench run resolves many commits; a check needs two
            _commits[(*repo_key, sha)] = sha  # the commit's own id (a tag's id is peeled afresh each time)


def resolve_revs(repo: git.Repo, revs: Sequence[str]) -> list[str]:
    """resolve_rev of each of `revs`, in order, asking one git process for all the names among them.

    Anything that one `rev-parse` cannot answer plainly (a name that is unknown, a range, a `:/text`
    search, the empty tree, INDEX) is resolved one by one, so it resolves, or fails, exactly as
    resolve_rev does.
    """
    names = [rev for rev in dict.fromkeys(revs) if _FULL_ID.fullmatch(rev) is None]
    if len(names) < 2 or any(
        not rev or rev.startswith(("-", "^", ":")) or ".." in rev or rev in (INDEX, EMPTY_TREE) for rev in names
    ):
        return [resolve_rev(repo, rev) for rev in revs]
    try:
        out = _git(repo, "rev-parse", "--revs-only", "--end-of-options", *(f"{rev}^{{commit}}" for rev in names), "--")
    except GitStateError:
        return [resolve_rev(repo, rev) for rev in revs]
    shas = out.decode().split()
    if len(shas) != len(names) or any(_FULL_ID.fullmatch(sha) is None for sha in shas):
        return [resolve_rev(repo, rev) for rev in revs]
    key = _repo_key(repo)
    for sha in shas:
        _remember_commit(key, sha)
    resolved = dict(zip(names, shas, strict=True))
    return [resolved.get(rev) or resolve_rev(repo, rev) for rev in revs]
