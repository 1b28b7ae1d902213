"""Git hooks that run `ratchet check`: the scripts, and installing them without clobbering.

Finding the hooks folder is the only git call here, and it goes through ratchet/repo/git.py's read-only
runner, so it sees the same repository, index and environment as every other read.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Literal

import git

from ratchet.core.errors import GitStateError
from ratchet.repo.git import _git

HOOK_MARKER = "# ratchet-hook:"
"""Hook scripts we write carry a line starting with this; anything else is the user's."""

HookKind = Literal["pre-push", "pre-commit"]


def hooks_dir(repo: git.Repo) -> Path:
    """Where git looks for hooks (core.hooksPath respected; shared by linked worktrees)."""
    out = _git(repo, "rev-parse", "--git-path", "hooks").decode().strip()
    base = Path(repo.working_tree_dir or repo.git_dir)
    return (base / out).resolve()


_ENTRY = 'import sys; from ratchet.cli import main; sys.argv[0] = "ratchet"; main()'

# The interpreter that installed the hook runs Ratchet even when its venv is not active.
_RUNNER = """\
ratchet() {{
  if [ -x {python} ]; then
    {python} -c {entry} "$@"
  else
    command ratchet "$@"
  fi
}}
"""

# A new branch is gated from its merge-base with the remote's default branch; with no default
# branch known (a first push to an empty remote) everything is new: the base is this
# repository's empty tree, asked of git so it is right for SHA-1 and SHA-256 alike. Nothing is
# blessed there, so the check WARNs "nothing is blessed at ..." and the push goes on; the hook
# says so in one line, since "the empty tree" is not what a team expects its push compared with.
# A push the check stops says how to go on. Git's all-zero ids are 40 or 64 zeros, so they are
# matched by having no other digit.
_PRE_PUSH = """\
#!/bin/sh
{marker} pre-push (written by `ratchet hook install`; reinstall with --force to update)
# Checks the skill edits in every pushed range; a BLOCK verdict (non-zero exit) stops the push.
{runner}
commit_of() {{ git rev-parse -q --verify "$1^{{commit}}" 2>/dev/null; }}

# The tip of the remote's default branch, if we have it: the remote-tracking HEAD, else the
# remote's only tracked branch, else the branch the remote says its HEAD is (one round trip,
# only when nothing local says), else init.defaultBranch.
default_tip() {{
  commit_of "refs/remotes/$1/HEAD" && return
  set -- "$1" $(git for-each-ref --format='%(refname)' "refs/remotes/$1/")
  [ $# -eq 2 ] && commit_of "$2" && return
  set -- "$1" $(git ls-remote --symref "$1" HEAD </dev/null 2>/dev/null | awk '
    $1 == "ref:" && $3 == "HEAD" {{ sub("^refs/heads/", "", $2); name = $2 }}
    $1 != "ref:" && $2 == "HEAD" {{ sha = $1 }}
    END {{ if (name != "") print name, sha }}')
  [ $# -eq 3 ] && commit_of "$3" && return  # its HEAD commit, if we have it
  [ $# -ge 2 ] && commit_of "refs/remotes/$1/$2" && return
  configured=$(git config init.defaultBranch)
  [ -n "$configured" ] && commit_of "refs/remotes/$1/$configured"
}}

remote="$1"
status=0
looked_up=""
while read -r local_ref local_sha remote_ref remote_sha; do
  case "$local_sha" in *[!0]*) ;; *) continue ;; esac  # a deleted ref: nothing to check
  head=$(commit_of "$local_sha") || continue  # a tag of a tree or a blob: no skills to gate
  base=""
  case "$remote_sha" in *[!0]*) base=$(commit_of "$remote_sha") ;; esac
  if [ -z "$base" ]; then
    # A new branch (or a remote tip we have not fetched).
    [ -n "$looked_up" ] || {{ tip=$(default_tip "$remote"); looked_up=1; }}
    [ -z "$tip" ] || base=$(git merge-base "$tip" "$head" 2>/dev/null)
    if [ -z "$base" ]; then
      base=$(git hash-object -t tree /dev/null)
      echo "ratchet: $remote has no commit to compare $local_ref with (a first push, or $remote not fetched:" \
        "git fetch $remote): it is checked against the empty tree, where nothing is blessed" >&2
    fi
  fi
  [ "$base" != "$head" ] || continue  # the remote has all of it already
  ratchet check --base "$base" --head "$local_sha" </dev/null || status=$?
  if [ "$status" -ne 0 ]; then
    echo "ratchet: push of $local_ref stopped (ratchet check exited $status): fix what the check names and" \
      "push again, or push without the gate: git push --no-verify" >&2
    break
  fi
done
exit $status
"""

_PRE_COMMIT = """\
#!/bin/sh
{marker} pre-commit (written by `ratchet hook install`; reinstall with --force to update)
# Checks the staged skill edits; a BLOCK verdict (non-zero exit) stops the commit.
{runner}
base=HEAD
# The first commit: the repository's empty tree (SHA-1 or SHA-256, as git says).
git rev-parse -q --verify HEAD >/dev/null 2>&1 || base=$(git hash-object -t tree /dev/null)
ratchet check --base "$base" --staged
"""


def render_hook(kind: HookKind, *, runner: str | None = None) -> str:
    """The hook script text; `runner` replaces the shell function that runs Ratchet (tests)."""
    if runner is None:
        runner = _RUNNER.format(python=shlex.quote(sys.executable), entry=shlex.quote(_ENTRY))
    template = {"pre-push": _PRE_PUSH, "pre-commit": _PRE_COMMIT}.get(kind)
    if template is None:
        raise GitStateError(f"unknown hook kind '{kind}' (use pre-push or pre-commit)")
    return template.format(marker=HOOK_MARKER, runner=runner)


def install_hook(repo: git.Repo, kind: HookKind, *, force: bool = False) -> Path:
    """Write an executable `kind` hook that runs `ratchet check`; return its path.

    A hook not written by Ratchet is kept unless `force`, in which case it is moved aside to
    `<hook>.ratchet-backup`.
    """
    script = render_hook(kind)
    directory = hooks_dir(repo)
    blocker = next((p for p in (directory, *directory.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        raise GitStateError(
            "this is a file, but git keeps hooks in a folder here (.git/hooks, or core.hooksPath): "
            "move the file away or point core.hooksPath at a folder",
            path=blocker,
        )
    path = directory / kind
    if path.exists() or path.is_symlink():
        ours = _is_ratchet_hook(path)
        if not ours and not force:
            raise GitStateError(
                f"a {kind} hook not written by Ratchet is already installed; rerun with --force "
                f"to replace it (the old hook is kept as {kind}.ratchet-backup)",
                path=path,
            )
        if not ours:
            os.replace(path, _free_backup_name(path))
    directory.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{kind}.ratchet-tmp")
    tmp.write_text(script, encoding="utf-8")
    tmp.chmod(0o755)
    os.replace(tmp, path)
    return path


def _free_backup_name(path: Path) -> Path:
    candidate = path.with_name(f"{path.name}.ratchet-backup")
    number = 1
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{path.name}.ratchet-backup.{number}")
        number += 1
    return candidate


def _is_ratchet_hook(path: Path) -> bool:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith(HOOK_MARKER) for line in text.splitlines()[:5])
