"""`ratchet record` and `ratchet bless`: make goldens."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config import load_project
from ratchet.errors import InfraError, InputError


def register(app: typer.Typer) -> None:
    @app.command()
    def record(
        task_ids: list[str] = typer.Argument(None, help="Task ids (default: every task)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Run tasks under the current skills and write pending traces for review."""
        from ratchet.recording import record_tasks

        project = load_project(project_dir, home=work)
        result = record_tasks(project, task_ids or [])
        typer.echo(f"recorded {len(result.written)} pending trace(s) in {project.pending_dir}")
        for line in result.errors:
            typer.echo(f"error: {line}", err=True)
        if result.errors:
            raise InfraError(f"{len(result.errors)} task(s) failed to record")

    @app.command(name="bless")
    def bless_cmd(
        task_ids: list[str] = typer.Argument(None, help="Task ids to bless (default: every pending trace)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Move pending traces into goldens/<skill>/<task>.json.

        A pending trace is refused, and left in pending/, when its run ended in error, its task
        is not in tasks.yaml, its file name is not its task id, or an id in it is not a plain name.
        The others are still blessed; each refusal is one `error:` line and the command exits 2.
        """
        from ratchet.recording import bless_pending

        project = load_project(project_dir, home=work)
        result = bless_pending(project, task_ids or [])
        typer.echo(f"blessed {len(result.blessed)} golden(s) into {project.path('goldens')}")
        for line in result.refused:
            typer.echo(f"error: {line}", err=True)
        if result.refused:
            raise InputError(f"{len(result.refused)} pending trace(s) refused; fix or re-record them, then bless again")
