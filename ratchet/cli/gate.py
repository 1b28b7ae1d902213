"""`ratchet check`: gate one edit."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Literal

import typer
from rich.console import Console

from ratchet.errors import InputError

EXIT_BLOCK = 1


def register(app: typer.Typer) -> None:
    @app.command()
    def check(
        base: str = typer.Option(..., "--base", help="Revision the edit starts from (e.g. origin/main)."),
        head: str | None = typer.Option(None, "--head", help="Revision with the edit (default HEAD)."),
        staged: bool = typer.Option(False, "--staged", help="Gate the staged changes instead of --head."),
        as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
        on_error: str | None = typer.Option(
            None, "--on-error", help="warn|block: what a pair that could not be checked does (default block under CI)."
        ),
        budget: float | None = typer.Option(None, "--budget", help="USD cap for this check's model calls."),
        config: str = typer.Option(
            "cascade", "--config", help="Gate config: a name in configs/ (cascade, nano_only, ...) or a YAML path."
        ),
        level0_only: bool = typer.Option(False, "--level0-only", help="No judges: differences WARN as 'needs judging'."),
        live_tavily: bool = typer.Option(False, "--live-tavily", help="Confirm moved world facts with Tavily (TAVILY_API_KEY)."),
        cache: str = typer.Option("once", "--cache", help="Response cache mode: once|new|none|all."),
        repo: Path = typer.Option(Path("."), "--repo", help="Path inside the git repository."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Replay the goldens an edit can affect and answer PASS / WARN / BLOCK.

        Exit codes: 0 PASS or WARN, 1 BLOCK, 2 bad input, 3 infrastructure error.
        """
        if head is not None and staged:
            raise InputError("--head and --staged exclude each other")
        mode = on_error or ("block" if os.environ.get("CI") else "warn")
        if mode not in ("warn", "block"):
            raise InputError(f"--on-error must be warn or block, not {mode!r}")
        if cache not in ("once", "new", "none", "all"):
            raise InputError(f"--cache must be once, new, none or all, not {cache!r}")
        policy: Literal["warn", "block"] = "block" if mode == "block" else "warn"
        from ratchet.cli.render import render_verdict
        from ratchet.gate.check import check_edit
        from ratchet.gate.gate_config import resolve_gate_config

        gate_config = None if level0_only else resolve_gate_config(config)

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
