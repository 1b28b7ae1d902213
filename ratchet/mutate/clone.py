"""The scratch clone the mutants are committed in: the user's repository is only ever read.

`ratchet mutate` gates each mutant as an edit, base -> `mutant/<id>`, through the normal check. The
branches live in a clone under Ratchet's work area (ratchet.repo.scratch: locked, removed on exit),
which borrows the user's objects (`git clone --shared`: nothing is copied, nothing is written back).
Each mutant is committed with plumbing over a private index file, without a work tree, and with the
base commit's date, so the same mutant is the same commit on every run.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import git

from ratchet.core.errors import InfraError
from ratchet.repo.scratch import scratch_folder

_AUTHOR = ("Ratchet Mutate", "mutate@ratchet.invalid")
_REF_PART = re.compile(r"[^A-Za-z0-9_-]+")


@contextmanager
def scratch_clone(source: Path, home: Path) -> Iterator[git.Repo]:
    """A clone of the repository at `source` under home/scratch, sharing its objects; removed on exit."""
    with scratch_folder(home) as folder:
        target = folder / "repo"
        try:
            git.Repo.clone_from(str(source), str(target), multi_options=["--shared", "--no-checkout", "--quiet"])
        except git.GitCommandError as err:
            raise InfraError(
                f"could not clone the repository into a scratch folder: {_stderr(err)}", path=source
            ) from None
        clone = git.Repo(target)
        try:
            yield clone
        finally:
            clone.close()


def mutant_ref(mutant_id: str) -> str:
    """`refs/heads/mutant/<id>`, each part of the id reduced to what a ref name may hold."""
    parts = [_REF_PART.sub("-", part).strip("-") or "_" for part in mutant_id.split("/")]
    return "refs/heads/mutant/" + "/".join(parts)


def commit_mutant(clone: git.Repo, base: str, files: Mapping[str, str], *, ref: str, message: str) -> str:
    """Commit `files` (repo path -> whole new text) over `base` (a commit sha, never a ref that can move) on `ref`
    in the clone; the new commit's sha.

    A file keeps its mode at the base (an executable script stays executable); a new one is 100644.
    """
    folder = Path(clone.git_dir) / "ratchet-mutate"
    folder.mkdir(exist_ok=True)
    date = _base_date(clone, base)
    env = {
        "GIT_INDEX_FILE": str(folder / "index"),
        "GIT_AUTHOR_NAME": _AUTHOR[0],
        "GIT_AUTHOR_EMAIL": _AUTHOR[1],
        "GIT_COMMITTER_NAME": _AUTHOR[0],
        "GIT_COMMITTER_EMAIL": _AUTHOR[1],
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    clone.git.read_tree(base, env=env)
    for number, (path, text) in enumerate(sorted(files.items())):
        blob = folder / f"blob-{number}"
        blob.write_bytes(text.encode("utf-8"))
        sha = clone.git.hash_object("-w", "--no-filters", str(blob), env=env)
        mode = _base_mode(clone, base, path)
        clone.git.update_index("--add", "--cacheinfo", f"{mode},{sha},{path}", env=env)
    tree = clone.git.write_tree(env=env)
    commit = str(clone.git.commit_tree(tree, "-p", base, "-m", message, env=env))
    clone.git.update_ref(ref, commit)
    return commit


# What a commit holds never changes: its date and its files' modes are asked of git once per run, not per mutant
# (two git processes fewer for each mutant after the first of a base; the commits are the same).
_dates: dict[tuple[str, str], str] = {}
_modes: dict[tuple[str, str, str], str] = {}


def _base_date(clone: git.Repo, base: str) -> str:
    key = (str(clone.git_dir), base)
    if key not in _dates:
        _dates[key] = clone.git.show("-s", "--format=%ct", base).strip() + " +0000"
    return _dates[key]


def _base_mode(clone: git.Repo, base: str, path: str) -> str:
    """The mode of `path` at `base` (100755 for an executable script), 100644 for a file the base does not have."""
    key = (str(clone.git_dir), base, path)
    if key not in _modes:
        listed = clone.git.ls_tree(base, "--", path).split()
        _modes[key] = listed[0] if listed and listed[1] == "blob" else "100644"
    return _modes[key]


def _stderr(err: git.GitCommandError) -> str:
    text = err.stderr if isinstance(err.stderr, str) else str(err)
    return " ".join(text.replace("stderr:", "").split()).strip("' ")
