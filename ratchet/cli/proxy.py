"""`ratchet proxy`: serve the gateway as an OpenAI-compatible endpoint on 127.0.0.1."""

from __future__ import annotations

import secrets
from pathlib import Path

import typer

from ratchet.config import load_project
from ratchet.llm.cache import CacheMode


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    @app.command()
    def proxy(
        port: int = typer.Option(8787, "--port", min=1, max=65535, help="Port on 127.0.0.1 (the proxy never binds elsewhere)."),
        run_id: str | None = typer.Option(None, "--run", help="Run id for the ledger (default: a fresh one)."),
        cache: CacheMode = typer.Option(CacheMode.ONCE, "--cache", help="Response cache mode."),
        budget: float | None = typer.Option(None, "--budget", help="USD this run may spend (the global cap holds too)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Record any agent harness: point its OpenAI base URL at the printed address."""
        from ratchet.cli.gate import checked_budget
        from ratchet.llm.proxy import CaptureProxy, serve
        from ratchet.store import open_store

        budget = checked_budget(budget)
        project = load_project(project_dir, home=work)
        store = open_store(project.home)
        run = run_id or f"proxy-{secrets.token_hex(4)}"
        capture = CaptureProxy(project, store, run_id=run, cache_mode=cache, budget_usd=budget)
        typer.echo(f"ratchet proxy ({project.config.upstream} upstream), run {run}")
        typer.echo(f"  OPENAI_BASE_URL=http://127.0.0.1:{port}/v1")
        typer.echo(f"  OPENAI_API_KEY={capture.token}   (this run's proxy token, not a provider key)")
        typer.echo("  models: " + ", ".join(sorted(project.config.tiers)))
        try:
            serve(capture, port=port)
        finally:
            capture.close()
            store.close()
