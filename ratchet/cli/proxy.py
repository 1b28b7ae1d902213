"""`ratchet proxy`: serve the gateway on 127.0.0.1 as the model endpoint of any agent harness
(OpenAI Chat Completions and Responses, Anthropic Messages; docs/proxy.md)."""

from __future__ import annotations

import secrets
from pathlib import Path

import typer

from ratchet.config.project import load_project
from ratchet.llm.cache import CacheMode


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    @app.command()
    def proxy(
        port: int = typer.Option(
            8787, "--port", min=1, max=65535, help="Port on 127.0.0.1 (the proxy never binds elsewhere)."
        ),
        run_id: str | None = typer.Option(None, "--run", help="Run id for the ledger (default: a fresh one)."),
        cache: CacheMode = typer.Option(CacheMode.ONCE, "--cache", help="Response cache mode."),
        budget: float | None = typer.Option(
            None, "--budget", help="USD this run may spend (the global cap holds too)."
        ),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        model_alias: list[str] = typer.Option(
            [],
            "--model-alias",
            metavar="NAME=TIER",
            help="Map a harness's model name (or a glob such as 'claude-*') to a tier; repeatable.",
        ),
        max_body_mib: int = typer.Option(
            16,
            "--max-body-mib",
            min=1,
            max=1024,
            help="Largest request body served, in MiB; a larger one is 413, refused before it is read.",
        ),
    ) -> None:
        """Record any agent harness: point its OpenAI or Anthropic base URL at the printed address."""
        from ratchet.cli.gate import checked_budget
        from ratchet.llm.proxy import CaptureProxy, parse_alias, serve
        from ratchet.sim.models import SIMULATOR
        from ratchet.store.db import open_store

        budget = checked_budget(budget)
        aliases = dict(parse_alias(spec) for spec in model_alias)
        project = load_project(project_dir, home=work)
        store = open_store(project.home)
        run = run_id or f"proxy-{secrets.token_hex(4)}"
        try:
            capture = CaptureProxy(
                project,
                store,
                run_id=run,
                cache_mode=cache,
                budget_usd=budget,
                model_aliases=aliases,
                max_body_bytes=max_body_mib * 1024 * 1024,
                gateway_options={"simulator": SIMULATOR},
            )
        except BaseException:
            store.close()
            raise
        try:
            capture.preflight()
        except BaseException:
            capture.close()
            store.close()
            raise
        typer.echo(f"ratchet proxy ({project.config.upstream} upstream), run {run}")
        typer.echo(f"  OPENAI_BASE_URL=http://127.0.0.1:{port}/v1")
        typer.echo(f"  OPENAI_API_KEY={capture.token}   (this run's proxy token, not a provider key)")
        typer.echo(f"  ANTHROPIC_BASE_URL=http://127.0.0.1:{port}")
        typer.echo(f"  ANTHROPIC_API_KEY={capture.token}")
        typer.echo("  models: " + ", ".join(sorted(project.config.tiers)))
        for name, tier in aliases.items():
            typer.echo(f"  alias: {name} -> {tier}")
        try:
            serve(capture, port=port)
        finally:
            capture.close()
            store.close()
