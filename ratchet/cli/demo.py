"""`ratchet demo`: the gate end to end on a throwaway repository, offline."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import typer

from ratchet.config.harness import HarnessChoice
from ratchet.core.errors import InfraError


def invocation(*, absolute: bool = False, argv0: str | None = None, path: str | None = None) -> str:
    """How to run this same Ratchet again, so a printed "try next" works when pasted.

    `ratchet` when PATH finds this very executable (an activated venv, pipx); otherwise the path it
    was started by (`.venv/bin/ratchet` after the README's first command, absolute with `absolute`),
    or `python -m ratchet` when it was not started through its entry point.
    """
    started = Path(argv0 if argv0 is not None else sys.argv[0])
    if started.name != "ratchet" or not started.is_file():
        return f"{Path(sys.executable).name} -m ratchet"
    found = shutil.which("ratchet", path=path)
    if found is not None and Path(found).resolve() == started.resolve():
        return "ratchet"
    return str(started.resolve()) if absolute or started.is_absolute() else str(started)


def register(app: typer.Typer) -> None:
    @app.command()
    def demo(
        directory: Path | None = typer.Option(
            None, "--dir", help="Build the demo repository here and keep it (default: a temp dir, removed)."
        ),
        harness: HarnessChoice | None = typer.Option(
            None,
            "--harness",
            help="Record and replay through this harness (claude-code, codex: the real binary, "
            "offline over the simulator) instead of Ratchet's minimal runner.",
        ),
    ) -> None:
        """Record goldens for two skills, then gate five edits through Level 0 and the judge cascade."""
        from rich.console import Console

        from ratchet.gate.static import proved_cosmetic
        from ratchet.outputs.table import render_verdict
        from ratchet.setup.demo import run_demo

        console = Console(highlight=False)
        result = run_demo(
            directory,
            report=typer.echo,
            show=lambda v: render_verdict(v, console),
            harness=harness.harness_name if harness is not None else None,
        )
        misses = [(e, v) for e, v in result.verdicts if v.decision != e.expected]
        typer.echo("")
        for edit, verdict in result.verdicts:
            mark = "ok " if verdict.decision == edit.expected else "!! "
            judged = sorted({p.decided_by for p in verdict.pairs if p.outcome != "same"})
            how = (
                ", ".join(judged)
                if judged
                else (
                    "the diff: no change in instructions, nothing replayed"
                    if proved_cosmetic(verdict.diff)
                    else "identical replays, no judge"
                )
            )
            judging = sum(o.cost_usd for p in verdict.pairs for o in p.opinions)
            typer.echo(
                f"{mark}{edit.branch:<24} {verdict.decision:<5} (expected {edit.expected})"
                f"  ${verdict.cost_usd:.6f} (judging ${judging:.6f})  decided by: {how}"
            )
        typer.echo("Costs are simulated tokens at catalog prices; a replay served from the cache costs $0.")
        typer.echo("")
        if directory is not None:
            ratchet = invocation(absolute=True)  # after the cd, a relative .venv/bin/ratchet would not resolve
            typer.echo(f"Try next:  cd {result.repo}")
            typer.echo(f"           {ratchet} check --base main --head edit/new-side-effect --json")
            typer.echo(f"           edit skills/*/SKILL.md, commit on a branch, and {ratchet} check --base main")
        else:
            typer.echo(f"Try next:  {invocation()} demo --dir ./ratchet-demo   (keeps the repository to explore)")
        if misses:
            raise InfraError(f"{len(misses)} demo edit(s) got an unexpected decision")
