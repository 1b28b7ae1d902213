"""Git access that never changes the user's repository.

Everything here reads through plumbing (rev-parse, diff-index --cached, ls-tree,
ls-files --stage, cat-file) with GIT_OPTIONAL_LOCKS=0, so the working tree, index, HEAD,
refs, stash and worktree list stay byte-identical. The "scratch worktree" is an export of a
tree into a folder under Ratchet's home, not `git worktree add` (docs/adr/0003-scratch-export.md):
`export_tree` here, the folders' lifetime in ratchet/scratch.py.

Hooks run with GIT_DIR and GIT_INDEX_FILE set; during `git commit` the index may be a
temporary one, and "staged" must mean what is in *that* index. Every command gets an explicit
environment built by `_git_env` so the answer never depends on which repository the
surrounding environment happens to point at.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import git

from ratchet.discovery import skill_folders_in_tree
from ratchet.errors import GitStateError, InputError

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
# Keys carry the git dir's inode, so a repository re-created at the same path starts empty.

_EMPTY_TREE_SHA256 = "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
"""The empty tree of a SHA-256 repository: the only other id resolve_rev passes through."""
_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_COMMITS_KEPT = 4096
_LISTINGS_KEPT = 4  # commits whose listings stay in memory (a check reads two)
_memo_lock = threading.Lock()
_empty_trees: dict[tuple[str, int], str] = {}
_commits: dict[tuple[str, int, str], str] = {}
_listings: OrderedDict[tuple[str, int, str], tuple[_Entry, ...]] = OrderedDict()


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


# -- what changed --------------------------------------------------------------------------


GITLINK = "160000"
"""The tree mode of a submodule: a commit of another repository, whose content we cannot see."""
_ABSENT = "000000"
"""The mode git's raw diff gives the side that lacks the path."""


class ChangedPath(NamedTuple):
    """One path that differs between two states, with its mode on each side ("000000": absent)."""

    path: str
    old_mode: str
    new_mode: str

    @property
    def is_gitlink(self) -> bool:
        return GITLINK in (self.old_mode, self.new_mode)


def changed_paths(repo: git.Repo, base: str, head: str | None = None, *, staged: bool = False) -> list[ChangedPath]:
    """Every path that differs between `base` and `head` (or the index with staged=True), sorted.

    Renames count on both sides (rename detection is off), as do additions and deletions. A
    submodule whose commit moved is one path (a gitlink), whatever .gitmodules or diff.ignoreSubmodules
    say: `--ignore-submodules=none` overrides both, so an edit cannot hide one from the gate.
    """
    base_sha = resolve_rev(repo, base)
    if staged or head == INDEX:
        if head is not None and head != INDEX:
            raise GitStateError("give either a head revision or staged=True, not both")
        out = _git(repo, "diff-index", "--cached", "-z", "--no-renames", "--ignore-submodules=none", base_sha, "--")
    else:
        head_sha = resolve_rev(repo, head if head is not None else "HEAD")
        return _listing_changes(_commit_listing(repo, base_sha), _commit_listing(repo, head_sha))
    fields = _z_fields(out)
    changes: dict[str, ChangedPath] = {}
    # raw -z records: ":<old mode> <new mode> <old sha> <new sha> <status>" NUL "<path>" NUL
    for meta, path in zip(fields[0::2], fields[1::2], strict=True):
        old_mode, new_mode = meta.lstrip(":").split(" ")[:2]
        changes[path] = ChangedPath(path, old_mode, new_mode)
    return [changes[path] for path in sorted(changes)]


def _listing_changes(base: Sequence[_Entry], head: Sequence[_Entry]) -> list[ChangedPath]:
    """What `diff-tree -r --no-renames --ignore-submodules=none` says of two commits, from their listings.

    Both listings are what a check reads anyway (skill folders, exports), so the difference costs no
    git process: a path whose mode or object differs, or that one side lacks ("000000"), sorted.
    """
    old, new = {e.path: e for e in base}, {e.path: e for e in head}
    changes = []
    for path in sorted(old.keys() | new.keys()):
        before, after = old.get(path), new.get(path)
        if before is not None and after is not None and (before.mode, before.sha) == (after.mode, after.sha):
            continue
        changes.append(
            ChangedPath(
                path, before.mode if before is not None else _ABSENT, after.mode if after is not None else _ABSENT
            )
        )
    return changes


def changed_files(repo: git.Repo, base: str, head: str | None = None, *, staged: bool = False) -> list[str]:
    """Paths that differ between `base` and `head` (or the index with staged=True), sorted (see changed_paths)."""
    return [change.path for change in changed_paths(repo, base, head, staged=staged)]


def _under(path: str, folder: str) -> tuple[str, ...] | None:
    """The parts of `path` below `folder`, or None when it is not below it."""
    prefix = PurePosixPath(folder.strip("/")).parts
    parts = PurePosixPath(path).parts
    return parts[len(prefix) :] if len(parts) > len(prefix) and parts[: len(prefix)] == prefix else None


def skills_touched(
    changes: Sequence[ChangedPath], skills_dir: str = "skills", skill_folders: Collection[str] | None = None
) -> list[str]:
    """Names of the skill folders with a changed file (or a changed submodule) below `skills_dir`.

    With `skill_folders` (the repo paths of the folders holding a SKILL.md at the base or the
    head: skill_folders_at), a path belongs to the deepest of its folders among them, so nested
    layouts (`skills/<category>/<name>/`) name the skill, and a category's own files name none.
    A path under no such folder, and every path without `skill_folders`, belongs to the first
    folder below `skills_dir` (`skills_dir/<name>/...`, or a submodule at `skills_dir/<name>`),
    which is what a flat layout always gave, even for a folder whose SKILL.md is missing.
    """
    names: set[str] = set()
    for change in changes:
        below = _under(change.path, skills_dir)
        if below is None or (len(below) == 1 and not change.is_gitlink):
            continue
        name = below[0] if skill_folders is None else _owning_skill(change, below, skill_folders)
        if name is not None:
            names.add(name)
    return sorted(names)


def _owning_skill(change: ChangedPath, below: tuple[str, ...], skill_folders: Collection[str]) -> str | None:
    parts = PurePosixPath(change.path).parts
    top = len(parts) - len(below)  # parts[:top] is skills_dir
    # A gitlink may itself be the skill folder (a submodule skill); a file is inside one.
    for end in range(len(parts) if change.is_gitlink else len(parts) - 1, top, -1):
        if "/".join(parts[:end]) in skill_folders:
            return parts[end - 1]
    first = "/".join(parts[: top + 1])
    if any(folder.startswith(first + "/") for folder in skill_folders):
        return parts[-1] if change.is_gitlink else None  # a folder of skills, not a skill
    return below[0]


def skill_folders_at(repo: git.Repo, revs: Sequence[str], skills_dir: str = "skills") -> set[str]:
    """Repo paths of the skill folders below `skills_dir` at any of `revs` (INDEX for the index).

    The rule is ratchet.discovery's, applied to each revision's file list.
    """
    folders: set[str] = set()
    for rev in revs:
        files = [entry.path for entry in _tree_entries(repo, rev, skills_dir) if entry.mode != GITLINK]
        folders |= skill_folders_in_tree(files, skills_dir)
    return folders


SYMLINK = "120000"
"""The tree mode of a symlink: its blob is the link's target, as written."""


def skill_links_leaving(repo: git.Repo, rev: str, skills_dir: str = "skills") -> list[tuple[str, str]]:
    """(repo path, target as written) of every symlink in a skill folder at `rev` (or INDEX) that leads out
    of that folder, sorted.

    Why: an export writes a link as a file holding its target, so a check never follows one; but the
    skill that would be installed from the tree is not the skill that was reviewed, and a harness given
    the real folder would carry the target into its sandbox. Where a link leads is worked out through
    the tree's other links, as the file system would (`a -> b/..` with `b -> .` leaves the folder).
    """
    entries = _tree_entries(repo, rev, None)
    folders = skill_folders_in_tree([e.path for e in entries if e.mode != GITLINK], skills_dir)
    links = [e for e in entries if e.mode == SYMLINK]
    if not links or not folders:
        return []
    blobs = _read_blobs(repo, [e.sha for e in links])
    targets = {e.path: blobs[e.sha].decode("utf-8", "replace") for e in links}
    leaving = []
    for path in sorted(targets):
        folder = next((f for f in folders if path.startswith(f + "/")), None)
        if folder is None:
            continue
        real = _resolve_in_tree(path, targets)
        if real is None or not (real == folder or real.startswith(folder + "/")):
            leaving.append((path, targets[path]))
    return leaving


def _resolve_in_tree(path: str, links: dict[str, str]) -> str | None:
    """Where `path` leads in a tree whose symlinks are `links` (path -> target); None outside the repository
    (an absolute target, `..` above the root) or in a loop."""
    pending = list(PurePosixPath(path).parts)
    done: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        done.append(part)
        target = links.get("/".join(done))
        if target is not None:
            hops += 1
            if hops > 40 or target.startswith("/"):  # 40: the kernel's own limit on links followed
                return None
            done.pop()
            pending[:0] = PurePosixPath(target).parts
    return "/".join(done)


def submodules_under(changes: Sequence[ChangedPath], folder: str) -> list[str]:
    """Paths of the changed gitlinks under `folder`, sorted."""
    return [c.path for c in changes if c.is_gitlink and _under(c.path, folder) is not None]


def changed_skills(
    repo: git.Repo,
    base: str,
    head: str | None = None,
    *,
    staged: bool = False,
    skills_dir: str = "skills",
) -> list[str]:
    """Names of skill folders with any changed file or submodule, sorted (see skills_touched)."""
    revs = [resolve_rev(repo, base), INDEX if staged or head == INDEX else resolve_rev(repo, head or "HEAD")]
    return skills_touched(
        changed_paths(repo, base, head, staged=staged), skills_dir, skill_folders_at(repo, revs, skills_dir)
    )


# -- reading trees ---------------------------------------------------------------------------


class _Entry:
    __slots__ = ("mode", "path", "sha")

    def __init__(self, mode: str, sha: str, path: str) -> None:
        self.mode = mode
        self.sha = sha
        self.path = path


def _tree_entries(repo: git.Repo, rev: str, prefix: str | None) -> list[_Entry]:
    """Every blob (and gitlink) at `rev` or in the index, optionally only under `prefix`."""
    pathspec = [prefix.strip("/")] if prefix else []
    entries: list[_Entry] = []
    if rev == INDEX:
        out = _git(repo, "ls-files", "--stage", "-z", "--full-name", "--", *pathspec)
        unmerged: set[str] = set()
        for record in _z_fields(out):
            meta, path = record.split("\t", 1)
            mode, sha, stage = meta.split(" ")
            if stage != "0":
                unmerged.add(path)
                continue
            entries.append(_Entry(mode, sha, path))
        if unmerged:
            raise GitStateError(f"the index has unmerged paths ({sorted(unmerged)[0]} ...); resolve the conflict first")
    else:
        entries = list(_commit_listing(repo, resolve_rev(repo, rev)))
    if prefix:
        # pathspecs match prefixes of names too ("skills/a" matches "skills/ab"): keep whole folders
        want = prefix.strip("/")
        entries = [e for e in entries if e.path == want or e.path.startswith(want + "/")]
    return entries


def _commit_listing(repo: git.Repo, sha: str) -> tuple[_Entry, ...]:
    """Every blob and gitlink of commit `sha`: one `ls-tree` per commit, kept (see the memos above)."""
    key = (*_repo_key(repo), sha)
    with _memo_lock:
        known = _listings.get(key)
        if known is not None:
            _listings.move_to_end(key)
            return known
    out = _git(repo, "ls-tree", "-r", "-z", "--full-tree", sha, "--")
    entries = []
    for record in _z_fields(out):
        meta, path = record.split("\t", 1)
        mode, _kind, obj = meta.split(" ")
        entries.append(_Entry(mode, obj, path))
    listing = tuple(entries)
    with _memo_lock:
        _listings[key] = listing
        while len(_listings) > _LISTINGS_KEPT:
            _listings.popitem(last=False)
    return listing


# -- reading blobs ---------------------------------------------------------------------------
#
# A check reads blobs four times (ratchet.yaml, the base's goldens, then each state's export), each
# one `cat-file --batch`. Inside blobs_read_once, the blobs of both states were read by one process
# and every read takes them from there: a blob's id names its bytes for ever, so none can be stale.

_read_once: ContextVar[tuple[tuple[str, int], dict[str, bytes]] | None] = ContextVar("_read_once", default=None)


@contextmanager
def blobs_read_once(repo: git.Repo, revs: Sequence[str]) -> Iterator[None]:
    """Read every blob of `revs` (commits or INDEX) in one git process; reads inside take them from it.

    Best effort: where that read fails (an object missing, an unmerged index), nothing is held, and
    each read inside fails, or not, exactly as it would have without this.
    """
    try:
        entries = [e for rev in dict.fromkeys(revs) for e in _tree_entries(repo, rev, None) if e.mode != GITLINK]
        blobs: dict[str, bytes] | None = _read_blobs(repo, [e.sha for e in entries])
    except GitStateError:
        blobs = None
    if blobs is None:
        yield
        return
    token = _read_once.set((_repo_key(repo), blobs))
    try:
        yield
    finally:
        _read_once.reset(token)


def _read_blobs(repo: git.Repo, shas: Sequence[str]) -> dict[str, bytes]:
    """Contents of many blobs with one `cat-file --batch` (none for those blobs_read_once holds)."""
    held = _read_once.get()
    known = held[1] if held is not None and held[0] == _repo_key(repo) else {}
    blobs = {sha: known[sha] for sha in set(shas) if sha in known}
    unique = sorted(set(shas) - blobs.keys())
    if not unique:
        return blobs
    out = _git(repo, "cat-file", "--batch", stdin="".join(f"{s}\n" for s in unique).encode())
    pos = 0
    for sha in unique:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split(" ")
        if len(header) != 3:
            raise GitStateError(f"object {sha} is missing from the repository")
        size = int(header[2])
        blobs[sha] = out[end + 1 : end + 1 + size]
        pos = end + 1 + size + 1
    return blobs


def read_file_at(repo: git.Repo, rev: str, path: str, *, error: type[InputError] = InputError) -> str | None:
    """Text of `path` at `rev` (or INDEX); None when the path is absent there.

    Bytes that are not UTF-8 are one `error` naming `path@rev` and the line, never text with
    U+FFFD in it: a garbled ratchet.yaml would be parsed as settings nobody wrote.
    """
    clean = str(PurePosixPath(path.strip("/")))
    entries = [e for e in _tree_entries(repo, rev, clean) if e.path == clean and e.mode != GITLINK]
    if not entries:
        return None
    data = _read_blobs(repo, [entries[0].sha])[entries[0].sha]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"{clean}@{rev if rev == INDEX else rev[:10]}"
        line = data.count(b"\n", 0, exc.start) + 1
        raise error(f"not UTF-8 text (byte {exc.start}): save the file as UTF-8", path=where, line=line) from None


def files_at(repo: git.Repo, rev: str, folder: str) -> dict[str, bytes] | None:
    """Repo path -> bytes of every file below `folder` at `rev` (or INDEX), read in one batch, none written.

    What export_tree would write there (a symlink is its target), for a reader that needs the bytes,
    not the files. None when the folder holds a submodule: its export is a folder, not a file.
    """
    want = str(PurePosixPath(folder.strip("/")))
    entries = [e for e in _tree_entries(repo, rev, want) if e.path.startswith(want + "/")]
    if any(e.mode == GITLINK for e in entries):
        return None
    blobs = _read_blobs(repo, [e.sha for e in entries])
    return {e.path: blobs[e.sha] for e in entries}


def path_exists_at(repo: git.Repo, rev: str, path: str) -> bool:
    """Whether `path` (a file, or a folder with anything in it) is in the tree at `rev` (or INDEX)."""
    return bool(_tree_entries(repo, rev, str(PurePosixPath(path.strip("/")))))


def _safe_target(dest: Path, path: str) -> Path:
    parts = PurePosixPath(path).parts
    if not parts or PurePosixPath(path).is_absolute() or any(p in ("..", ".git") for p in parts):
        raise GitStateError(f"refusing to export unsafe path {path!r}")
    return dest.joinpath(*parts)


def _is_under(path: str, folders: Iterable[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def export_tree(repo: git.Repo, rev: str, dest: Path, *, prefix: str | None = None, skip: Collection[str] = ()) -> None:
    """Write every file of the tree at `rev` (or INDEX), optionally only under `prefix`, into dest.

    Paths keep their place relative to the repository root; folders in `skip` (repo paths) are
    left out, for a state whose reader never opens them (check's head never reads its goldens).
    Symlinks become files holding their target; submodules become empty folders. Each file is
    one open, write and close, each folder one makedirs: an export of 10,000 goldens is mostly that.
    """
    entries = _tree_entries(repo, rev, prefix)
    skipped = [str(PurePosixPath(folder.strip("/"))) for folder in skip]
    skipped = [folder for folder in skipped if folder != "."]
    if skipped:
        entries = [e for e in entries if not _is_under(e.path, skipped)]
    blobs = _read_blobs(repo, [e.sha for e in entries if e.mode != GITLINK])
    dest.mkdir(parents=True, exist_ok=True)
    made = {str(dest)}
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for entry in entries:
        target = str(_safe_target(dest, entry.path))
        if entry.mode == GITLINK:
            os.makedirs(target, exist_ok=True)
            made.add(target)
            continue
        parent = os.path.dirname(target)
        if parent not in made:
            os.makedirs(parent, exist_ok=True)
            made.add(parent)
        fd = os.open(target, flags, 0o666)
        try:
            data = memoryview(blobs[entry.sha])
            while data:
                data = data[os.write(fd, data) :]
            if entry.mode == "100755":
                os.fchmod(fd, os.fstat(fd).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        finally:
            os.close(fd)
