"""`ratchet record` and `ratchet bless`: make goldens."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config.harness import HarnessChoice
from ratchet.config.project import Project, load_project
from ratchet.core.errors import InfraError, InputError, RoutingError, SkillError


def register(app: typer.Typer) -> None:
    @app.command()
    def record(
        task_ids: list[str] = typer.Argument(None, help="Task ids (default: every task)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        allow_unfollowed: bool = typer.Option(
            False,
            "--allow-unfollowed",
            help="Record skills the simulator cannot follow anyway (their goldens show only what it did).",
        ),
        harness: HarnessChoice | None = typer.Option(
            None,
            "--harness",
            help="Record through this harness instead "
            "of ratchet.yaml's `harness:` (minimal, claude-code, codex, command).",
        ),
    ) -> None:
        """Run tasks under the current skills and write pending traces for review.

        First prints how each task routes (expected skill, fired skill, score, margin). Nothing
        is recorded, and the command exits 2, when a task fires another skill than tasks.yaml
        expects (a canary firing any skill included): reword the description or fix tasks.yaml.
        On the simulator a fired skill it cannot follow is refused the same way, one line per
        skill, unless --allow-unfollowed. Under `routing: model` the fired skill is the one the
        agent model loaded: the table is printed after the runs, and nothing is written if a task
        loaded another skill. A trace that shows no sign of its skill at work (no tool or command
        the skill names was called, none of the output it prescribes) is one warning line:
        `ratchet bless` refuses it unless --accept-thin.
        """
        from ratchet.bless.evidence import AT_RECORD
        from ratchet.bless.record import plan_record, record_tasks
        from ratchet.llm.preflight import preflight_config

        project = load_project(project_dir, home=work).with_harness(harness.harness_name if harness else None)
        preflight_config(project.config, ["agent"])  # a dead upstream is one line, before the routing table
        if not project.config.harness.is_minimal:  # a release never tested is named before anything is recorded
            from ratchet.harness.driver import resolve_binary
            from ratchet.harness.versions import outside_tested

            untested = outside_tested(project.config.harness.name, resolve_binary(project.config.harness)[1])
            if untested is not None:
                typer.echo(untested)
        _say_sandbox(project)
        plan = plan_record(project, task_ids or [])
        by_model = project.config.routes_by_model
        if not by_model:  # under routing: model the table comes after the runs, from what the model loaded
            typer.echo(plan.routing.table())
            plan.routing.refuse()
        if plan.unfollowed and not allow_unfollowed:
            for skill in plan.unfollowed:
                typer.echo(f"error: {skill.refusal().one_line()}", err=True)
            raise SkillError(f"{len(plan.unfollowed)} skill(s) the simulator cannot follow; nothing was recorded")
        for skill in plan.unfollowed:
            typer.echo(skill.note(), err=True)
        try:
            result = record_tasks(project, task_ids or [], allow_unfollowed=allow_unfollowed, plan=plan)
        except RoutingError as exc:
            if by_model:
                typer.echo(exc.table)
            raise
        if result.routing is not None:
            typer.echo(result.routing.table())
        typer.echo(f"recorded {len(result.written)} pending trace(s) in {project.pending_dir}")
        for line in result.thin:
            typer.echo(f"warning: {line}{AT_RECORD}", err=True)
        for line in result.errors:
            typer.echo(f"error: {line}", err=True)
        if result.errors:
            timed_out = f" ({len(result.timed_out)} timed out)" if result.timed_out else ""
            raise InfraError(f"{len(result.errors)} task(s) failed to record{timed_out}")

    @app.command(name="bless")
    def bless_cmd(
        task_ids: list[str] = typer.Argument(None, help="Task ids to bless (default: every pending trace)."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
        repeats: int = typer.Option(
            0,
            "--repeats",
            min=0,
            help="Then replay each blessed golden this many times "
            "under its unchanged skill and record what varied (see `ratchet noise`); 0: do not.",
        ),
        accept_thin: bool = typer.Option(
            False,
            "--accept-thin",
            help="Bless traces that show no sign of their skill at work anyway; each golden keeps why, "
            "and every check that replays it names it (at least WARN).",
        ),
    ) -> None:
        """Move pending traces into goldens/<skill>/<task>.json.

        A pending trace is refused, and left in pending/, when its run ended in error, its task
        is not in tasks.yaml, its file name is not its task id, or an id in it is not a plain name.
        It is refused too when it is thin: its task is a skill's, and the run shows no sign of that
        skill at work (the skill was not loaded, or none of the tools or commands the skill names was
        called and the reply has none of the output it prescribes); --accept-thin blesses it anyway.
        The others are still blessed; each refusal is one `error:` line and the command exits 2.
        Blessing a golden removes its old noise record; with --repeats N a new one is measured.
        """
        from ratchet.bless.mutation_scores import score_lines
        from ratchet.bless.record import bless_pending
        from ratchet.goldens.trace import read_trace

        project = load_project(project_dir, home=work)
        if repeats:  # the noise measurement's upstream is checked before anything is blessed
            from ratchet.bless.noise import preflight_noise

            preflight_noise(project)
        result = bless_pending(project, task_ids or [], accept_thin=accept_thin)
        typer.echo(f"blessed {len(result.blessed)} golden(s) into {project.path('goldens')}")
        for line in score_lines(project.path("goldens"), result.blessed):  # what these goldens would catch
            typer.echo(line)
        for line in result.thin:
            typer.echo(f"warning: {line}", err=True)
        for line in result.refused:
            typer.echo(f"error: {line}", err=True)
        if repeats and result.blessed:
            _measure(project, [read_trace(path).task_id for path in result.blessed], repeats)
        if result.refused:
            raise InputError(f"{len(result.refused)} pending trace(s) refused; fix or re-record them, then bless again")

    @app.command(name="noise")
    def noise_cmd(
        task_ids: list[str] = typer.Argument(None, help="Task ids whose goldens to measure (default: every golden)."),
        repeats: int = typer.Option(20, "--repeats", min=2, help="Replays per golden."),
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
        work: Path | None = typer.Option(None, "--work", help="Ratchet's work area (default RATCHET_HOME)."),
    ) -> None:
        """Measure how blessed goldens vary: replay each N times under its unchanged skill.

        Writes goldens/<skill>/<task>.noise.json beside each golden: how many repeats differed from it
        (its flip rate) and which parts varied, how often. Commit it with the golden: `ratchet check` reads
        the base's records, and a pair that differs only where its golden is known to vary is replayed
        again and blocks only when an exact test says the edit regresses more often than the golden
        flips (docs/adr/0017-statistics.md). A golden whose skill changed since it was recorded is refused.
        At a per-replay variation rate q, N repeats miss it with chance (1 - q)^N.
        """
        _measure(load_project(project_dir, home=work), task_ids or [], repeats)


def _say_sandbox(project: Project) -> None:
    """One line when this run's harness replays run without bubblewrap, and why (a check says it on its verdict)."""
    if not project.config.harness.is_minimal:
        from ratchet.harness.bwrap_mode import fallback_line

        line = fallback_line(project.config.harness)
        if line is not None:
            typer.echo(f"note: {line}", err=True)


def _measure(project: Project, task_ids: list[str], repeats: int) -> None:
    from ratchet.bless.noise import record_noise

    _say_sandbox(project)
    result = record_noise(project, task_ids, repeats=repeats)
    for line in result.lines:
        typer.echo(line)
    simulated = " (SIMULATED: the simulator varies only with sim_noise set)" if project.config.upstream == "sim" else ""
    typer.echo(f"wrote {len(result.written)} noise record(s), ${result.cost_usd:.6f}{simulated}")
    for line in [*result.refused, *result.failed]:
        typer.echo(f"error: {line}", err=True)
    if result.failed:  # a replay that could not run is infrastructure (exit 3), whatever else was refused
        timed_out = f" ({result.timed_out} timed out)" if result.timed_out else ""
        raise InfraError(
            f"{len(result.failed)} golden(s) could not be measured: their replays failed{timed_out}; "
            "fix the cause, then run ratchet noise again"
        )
    if result.refused:
        raise InputError(f"{len(result.refused)} golden(s) not measured; fix them, then run ratchet noise again")
