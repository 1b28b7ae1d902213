"""`ratchet diff`: what an edit changes in each skill, read without a model."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ratchet.config.harness import HarnessChoice
from ratchet.core.errors import InputError


def register(app: typer.Typer) -> None:
    @app.command()
    def diff(
        base: str | None = typer.Option(
            None, "--base", help="Revision the edit starts from (default: HEAD with --staged, else HEAD~1)."
        ),
        head: str | None = typer.Option(None, "--head", help="Revision with the edit (default HEAD)."),
        staged: bool = typer.Option(False, "--staged", help="Diff the staged changes instead of --head."),
        as_json: bool = typer.Option(False, "--json", help="Print the diff as JSON (docs/diff.md)."),
        harness: HarnessChoice | None = typer.Option(
            None,
            "--harness",
            help="Read the skill as this harness sends "
            "it instead of ratchet.yaml's `harness:` (the minimal runner "
            "drops HTML comments; the others send them).",
        ),
        repo: Path = typer.Option(Path("."), "--repo", help="Path inside the git repository."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Name what an edit changes in each skill folder, without a model or a replay.

        One line per finding: instructions added, removed or changed; side-effect actions; rules removed
        or weakened; changed constants and conditions; output elements removed or renamed; a broader or
        narrower description; content after a skill-closing line; script findings (Bandit, ShellCheck).
        A cosmetic edit prints "no change in instructions" and why. Exit codes: 0, 2 bad input.
        """
        if head is not None and staged:
            raise InputError("--head and --staged exclude each other")
        from ratchet.diff.edit import diff_revisions
        from ratchet.diff.render import diff_text

        result = diff_revisions(
            repo,
            base=base or ("HEAD" if staged else "HEAD~1"),
            head=head,
            staged=staged,
            harness=harness.harness_name if harness is not None else None,
            home=work,
        )
        sys.stdout.write(result.to_json() if as_json else diff_text(result))
