"""`ratchet triggers`: does each skill fire on the requests it should, and only on those? (docs/triggers.md)"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ratchet.config.project import load_project
from ratchet.core.errors import BudgetError, InfraError


def register(app: typer.Typer) -> None:
    @app.command()
    def triggers(
        skills: list[str] | None = typer.Option(
            None, "--skill", help="Only the queries about this skill (repeatable; default: every query, canaries too)."
        ),
        repeats: int = typer.Option(5, "--repeats", min=1, max=200, help="Runs per query, each with its own seed."),
        budget: float | None = typer.Option(
            None, "--budget", help="USD cap for the run; the runs before it are reported (exit 2)."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of the table."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Run every trigger query N times with the whole skill library installed, and report fire rates.

        Queries come from triggers.yaml beside tasks.yaml (should_fire and should_not_fire prompts per
        skill) and from tasks.yaml (a task should fire its skill; a canary should fire none). Each run goes
        through the configured harness with no world and no tools beyond loading a skill, and records which
        skill was loaded, if any. Per query: the fire rate with a 95% Wilson interval; per skill: recall on
        its should-fire queries and the false-fire rate on its should-not-fire ones. The agent tier is
        preflighted and the estimate goes to stderr first; cached repeats are free. A run that timed out or
        crashed is an error, never a negative. Exit codes: 0 every run ran, 2 bad input or --budget stopped
        the runs (those done are reported), 3 infrastructure (the upstream is down, or a run errored).
        """
        # Imported here: the runner and its models are not for `ratchet --help` or other commands.
        from ratchet.cli.gate import checked_budget
        from ratchet.triggers.evaluate import TriggerOptions, evaluate_triggers
        from ratchet.triggers.render import render_json, render_text

        options = TriggerOptions(
            skills=tuple(skills or ()),
            repeats=repeats,
            budget_usd=checked_budget(budget),
            echo=lambda line: typer.echo(line, err=True),
        )
        report = evaluate_triggers(load_project(project_dir, home=work), options)
        sys.stdout.write(render_json(report) if as_json else render_text(report))
        if report.stopped is not None:
            raise BudgetError(f"the budget stopped the trigger runs: {report.stopped}")
        if report.errors:
            erred = [q for q in report.queries if q.errors]
            raise InfraError(
                f"{report.errors} trigger run(s) of {len(erred)} query(ies) ended in error, first {erred[0].id}: "
                f"{erred[0].first_error}; an error is not a negative: fix the cause and run again"
            )
