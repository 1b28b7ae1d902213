"""`ratchet check`: gate one edit."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from rich.console import Console

from ratchet.errors import InputError
from ratchet.gate.policy import OnError
from ratchet.llm.cache import CacheMode

EXIT_BLOCK = 1


def register(app: typer.Typer) -> None:
    @app.command()
    def check(
        base: str = typer.Option(..., "--base", help="Revision the edit starts from (e.g. origin/main)."),
        head: str | None = typer.Option(None, "--head", help="Revision with the edit (default HEAD)."),
        staged: bool = typer.Option(False, "--staged", help="Gate the staged changes instead of --head."),
        as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
        on_error: OnError | None = typer.Option(
            None, "--on-error", help="What a pair that could not be checked does (default: block under CI, else warn)."
        ),
        budget: float | None = typer.Option(None, "--budget", help="USD cap for this check's model calls."),
        config: str = typer.Option(
            "cascade", "--config",
            help="Gate config: a name (cascade, nano_only, ...; the project's configs/<name>.yaml overrides the "
            "packaged one) or a YAML path.",
        ),
        level0_only: bool = typer.Option(False, "--level0-only", help="No judges: differences WARN as 'needs judging'."),
        live_tavily: bool = typer.Option(False, "--live-tavily", help="Confirm moved world facts with Tavily (TAVILY_API_KEY)."),
        cache: CacheMode = typer.Option(CacheMode.ONCE, "--cache", help="Response cache mode."),
        repo: Path = typer.Option(Path("."), "--repo", help="Path inside the git repository."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Replay the goldens an edit can affect and answer PASS / WARN / BLOCK.

        Exit codes: 0 PASS or WARN, 1 BLOCK, 2 bad input, 3 infrastructure error.
        """
        if head is not None and staged:
            raise InputError("--head and --staged exclude each other")
        policy = on_error or (OnError.BLOCK if os.environ.get("CI") else OnError.WARN)
        from ratchet.cli.render import render_verdict
        from ratchet.gate.check import check_edit
        from ratchet.gate.gate_config import resolve_gate_config
        from ratchet.gitops import open_repo, repo_root

        gate_config = resolve_gate_config(
            "level0_only" if level0_only else config, project_root=repo_root(open_repo(repo))
        )

        verdict = check_edit(
            repo, base=base, head=head, staged=staged, home=work, on_error=policy,
            cache_mode=cache, budget_usd=budget, config=gate_config, live_tavily=live_tavily,
        )
        if as_json:
            sys.stdout.write(verdict.to_json())
        else:
            render_verdict(verdict, Console(highlight=False, soft_wrap=False))
        if verdict.decision == "BLOCK":
            raise typer.Exit(EXIT_BLOCK)
