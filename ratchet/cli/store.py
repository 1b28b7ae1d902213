"""`ratchet store compact`: keep the ledger small without losing a cent of its totals."""

from __future__ import annotations

import time
from contextlib import closing
from pathlib import Path

import typer

from ratchet.core.errors import InputError

store_app = typer.Typer(help="The work area's SQLite store (ledger, reservations).", no_args_is_help=True)

DAY_S = 86_400


@store_app.command("compact")
def compact(
    older_than: int = typer.Option(
        30,
        "--older-than",
        metavar="DAYS",
        help="Fold ledger rows older than DAYS into per-run totals (0: all of them).",
    ),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
    work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
) -> None:
    """Fold old ledger rows into per-run rollups and drop them; print what was done.

    Spend totals, run totals, call and cache-hit counts and the estimate's observed means are
    unchanged; reservations of calls in flight are never touched. Safe while other runs write.
    """
    from ratchet.config.project import load_project
    from ratchet.store.db import STORE_FILE, Store

    if older_than < 0:
        raise InputError(f"--older-than must be 0 or more days, not {older_than}")
    path = load_project(project_dir, home=work).home / STORE_FILE
    if not path.is_file():
        raise InputError("no ledger here; nothing to compact (check --work)", path=path)
    with closing(Store(path)) as store:
        result = store.compact(before_ts=time.time() - older_than * DAY_S)
        real, simulated = store.total_spend(), store.total_spend(simulated=True)
    typer.echo(
        f"compacted {path}: {result.rows_dropped} ledger row(s) older than {older_than} day(s) folded into "
        f"run totals, {result.rows_kept} kept; spend unchanged (real ${real:.4f}, simulated ${simulated:.4f})"
    )


def register(app: typer.Typer) -> None:
    """Add the `store` sub-app to the app."""
    app.add_typer(store_app, name="store")
