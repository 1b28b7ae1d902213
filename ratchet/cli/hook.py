"""`ratchet hook install`: put `ratchet check` into git's pre-push (or pre-commit) hook."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

hook_app = typer.Typer(help="Git hooks that run `ratchet check`.", no_args_is_help=True)


@hook_app.command("install")
def install(
    pre_commit: Annotated[
        bool,
        typer.Option("--pre-commit", help="Install the pre-commit hook (checks staged edits) instead of pre-push."),
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace a hook not written by Ratchet (kept as <hook>.ratchet-backup).")
    ] = False,
    repo: Annotated[Path, typer.Option("--repo", help="Path inside the git repository.")] = Path("."),
) -> None:
    """Install a git hook that gates skill edits with `ratchet check`; print its path.

    pre-push (default) checks each pushed range against the remote tip, or the merge-base with
    the default branch for a new branch; a first push to an empty remote is checked against the
    empty tree, where nothing is blessed (WARN, and the push goes on). A push the check stops
    says how to go on. --pre-commit checks the staged changes against HEAD.
    """
    from ratchet.repo.git import open_repo
    from ratchet.repo.hooks import install_hook

    path = install_hook(open_repo(repo), "pre-commit" if pre_commit else "pre-push", force=force)
    typer.echo(f"installed {'pre-commit' if pre_commit else 'pre-push'} hook: {path}")


def register(app: typer.Typer) -> None:
    """Add the `hook` sub-app to the app."""
    app.add_typer(hook_app, name="hook")
