"""`ratchet watch [SKILL...]`: did the agent model's behaviour move behind the same name? (docs/adr/0024-watch.md)"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ratchet.cli.gate import checked_budget
from ratchet.config.project import load_project
from ratchet.core.errors import BudgetError, InfraError

EXIT_MOVED = 1
EXIT_CANNOT_TELL = 4
"""Nothing moved and nothing failed, but a watched skill could not have been flagged (not tested, or too few
counts): a scheduled job must not read that as quiet."""


def register(app: typer.Typer) -> None:
    @app.command()
    def watch(
        skills: list[str] | None = typer.Argument(None, help="Skills to watch (default: every skill with a golden)."),
        per_skill: int = typer.Option(
            3,
            "--per-skill",
            min=1,
            help="At most K goldens per skill, in an order seeded by task id (the same on every run).",
        ),
        repeats: int = typer.Option(4, "--repeats", min=1, help="Replays per golden."),
        alpha: float = typer.Option(
            0.05, "--alpha", help="Significance level, Holm-corrected across the skills tested."
        ),
        budget: float | None = typer.Option(
            None, "--budget", help="USD cap for the run; replays it refuses are reported, never counted (exit 2)."
        ),
        concurrency: int = typer.Option(1, "--concurrency", min=1, max=64, help="Replays run at once."),
        as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of the table."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        executor: str = typer.Option(
            "local",
            "--executor",
            metavar="local|ray",
            help="Where the goldens are replayed: this process, or Ray tasks, --concurrency at once (the optional "
            "ray extra); the report is the same.",
        ),
        ray_address: str | None = typer.Option(
            None,
            "--ray-address",
            metavar="ADDR",
            help="With --executor ray: an existing cluster (host:port) whose nodes see this project and the work "
            "area at the same paths (default: a local Ray on loopback, started for the run).",
        ),
    ) -> None:
        """Replay goldens under their unchanged skills with today's agent model: did its behaviour move?

        For a scheduled CI job: was it the provider or my change? Per skill, up to --per-skill goldens with a
        fresh noise record (ratchet noise, or bless --repeats) are replayed --repeats times each, never from
        the response cache, and compared with their goldens as a noise record counts a repeat. A skill whose
        replays differ more often than its noise records did (one-sided Fisher exact test, Holm-corrected at
        --alpha) is reported as "the model's behaviour moved". A replay whose tool results moved before the
        model did anything else differently is world drift, reported apart and not counted. Goldens without a
        fresh record, or whose skill changed, are named. The estimate goes to stderr first. Nothing is written.
        A replay that ends at the turn limit where its golden finished differed ("status: turn limit"); only
        failures (a model call, a tool or harness crash, a timeout) are not counted. A watched skill this run
        could not have flagged (every replay world drift, or too few counts even had every replay differed,
        after Holm) is "cannot tell", with the --repeats that would do. Exit codes: 0 every watched skill
        tested and none moved, 1 a skill's behaviour moved, 2 bad input or --budget stopped replays,
        3 infrastructure (replays failed), 4 cannot tell for a watched skill (named; nothing moved or failed).
        """
        # Imported here: the replay path and its models are not for `ratchet --help` or other commands.
        from rich.console import Console

        from ratchet.watch.render import render_json, render_report
        from ratchet.watch.run import WatchOptions, watch_project

        options = WatchOptions(
            skills=tuple(skills or ()),
            per_skill=per_skill,
            repeats=repeats,
            alpha=alpha,
            budget_usd=checked_budget(budget),
            concurrency=concurrency,
            echo=lambda line: typer.echo(line, err=True),
            executor=executor,
            ray_address=ray_address,
        )
        report = watch_project(load_project(project_dir, home=work), options)
        if as_json:
            sys.stdout.write(render_json(report))
        else:
            render_report(report, Console(highlight=False, soft_wrap=False))
        if report.moved:
            raise typer.Exit(EXIT_MOVED)
        if report.failed:
            first = report.failed[0]
            raise InfraError(
                f"{len(report.failed)} watch replay(s) failed, first {first.task_id}: {first.detail}; "
                "fix the cause and watch again"
            )
        if report.stopped is not None:
            raise BudgetError(f"the budget stopped replays: {report.stopped}")
        if report.undecided:
            raise typer.Exit(EXIT_CANNOT_TELL)
