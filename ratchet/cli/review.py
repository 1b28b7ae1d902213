"""`ratchet review`: a self-contained HTML page for pending goldens, a verdict or the label queue."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from ratchet.core.errors import InputError


def register(app: typer.Typer) -> None:
    @app.command()
    def review(
        verdict: Path | None = typer.Option(None, "--verdict", help="A verdict written by `ratchet check --json`."),
        replays: Path | None = typer.Option(
            None, "--replays", help="With --verdict: the replays behind it (EditReplays JSON, as the bench keeps)."
        ),
        labels: bool = typer.Option(False, "--labels", help="The bench's label queue (`ratchet bench label`)."),
        out: Path = typer.Option(Path("review.html"), "--out", help="Where to write the page."),
        serve: bool = typer.Option(False, "--serve", help="Serve it on 127.0.0.1 with accept / reject / skip buttons."),
        port: int = typer.Option(0, "--port", help="With --serve: the port (default: a free one)."),
        reviewer: str = typer.Option("", "--reviewer", help="Who reviews labels (default $USER)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Write (or serve) an HTML page showing golden and replay side by side.

        Tool calls are aligned as Level 0 aligns them, changed arguments highlighted, outputs
        diffed line by line, with each judge tier's opinion and the drift evidence. Default: the
        pending traces (RATCHET_HOME/pending) against the current goldens. Served, accept runs
        what `ratchet bless TASK_ID` runs (what `ratchet bench label EDIT_ID --agree` runs for
        the label queue); reject leaves a pending trace where it is; skip does nothing. A
        verdict page is read only. See docs/review.md (`ratchet docs review` prints where it is installed).
        """
        from ratchet.config.project import load_project
        from ratchet.core.jsonio import atomic_write_text
        from ratchet.review.actions import labels_session, pending_session, verdict_session
        from ratchet.review.page import render_page
        from ratchet.review.serve import ReviewServer

        if verdict is not None and labels:
            raise InputError("--verdict and --labels exclude each other")
        if replays is not None and verdict is None:
            raise InputError("--replays goes with --verdict")
        if not 0 <= port <= 65535:
            raise InputError(f"--port must be 0..65535, not {port}")
        project = load_project(project_dir.resolve(), home=work)
        who = reviewer or os.environ.get("USER", "")
        if verdict is not None:
            session = verdict_session(project, verdict, replays)
        elif labels:
            session = labels_session(project, reviewer=who)
        else:
            session = pending_session(project, reviewer=who)
        page = session.build()
        # Said in the terminal too: the page may never be opened before `ratchet bless` runs.
        for note in (n for n in page.unseen if n.level == "warn"):
            typer.echo(f"warning: {note.detail}", err=True)
        if serve:
            server = ReviewServer(session, port=port)
            typer.echo(f"reviewing {len(page.items)} item(s) at {server.url}")
            typer.echo("loopback only; the token in the URL is this run's; Ctrl-C stops")
            server.run()
            return
        atomic_write_text(out, render_page(page))
        typer.echo(f"wrote {out} ({len(page.items)} item(s), {page.mode})")
