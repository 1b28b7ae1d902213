"""`ratchet bench ...`: build, validate and label SkillRegress-Bench (run/report/... live beside these)."""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from ratchet.cli import bench_run
from ratchet.core.errors import InputError
from ratchet.core.labels import SIMULATED
from ratchet.gate.models import Decision

bench_app = typer.Typer(
    name="bench",
    help="SkillRegress-Bench: build the labeled edits, validate the dataset, review labels, run configurations.",
    no_args_is_help=True,
    add_completion=False,
)


# The benchmark's own dependencies (import name -> distribution): `pip install ratchet` leaves them out,
# since the gate needs none of them, and the `bench` extra brings them (pyproject.toml).
BENCH_EXTRA_MODULES = {"matplotlib": "matplotlib", "numpy": "numpy", "sklearn": "scikit-learn", "scipy": "scipy"}


def require_bench_extra() -> None:
    """An InputError naming what is missing when the `bench` extra is not installed.

    Checked before a bench command starts, so a run does not fail at its report after minutes of work.
    """
    missing = [dist for module, dist in BENCH_EXTRA_MODULES.items() if importlib.util.find_spec(module) is None]
    if missing:
        raise InputError(
            f"ratchet bench needs the benchmark's dependencies, and {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed: install ratchet[bench] "
            "(pip install 'ratchet[bench]'; in a clone, pip install -e '.[bench]')"
        )


def _needs_bench_extra(callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        require_bench_extra()
        return callback(*args, **kwargs)

    return wrapper


def register(app: typer.Typer) -> None:
    for info in bench_app.registered_commands:  # --help still works without the extra: it runs no callback
        if info.callback is not None:
            info.callback = _needs_bench_extra(info.callback)
    app.add_typer(bench_app, name="bench")


@bench_app.command("build")
def build_command(
    skills: str | None = typer.Option(None, "--skills", help="Comma-separated skills (default: all)."),
    types: str | None = typer.Option(None, "--types", help="Comma-separated edit types, e.g. R2,R4,N0 (default: all)."),
    no_goldens: bool = typer.Option(False, "--no-goldens", help="Keep the existing goldens; do not re-record."),
    no_controls: bool = typer.Option(False, "--no-controls", help="Skip the N0, D1 and F0 controls."),
    no_inject: bool = typer.Option(False, "--no-inject", help="Skip R1-R7 injection."),
    yes: bool = typer.Option(False, "--yes", help="Allow a live build to spend (after printing the estimate)."),
    work: Path | None = typer.Option(None, "--work", help="Work area (default var/bench/)."),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
) -> None:
    """Record goldens and build the N0/D1/F0 controls and R1-R7 edits with their labels."""
    from ratchet.bench.build.build import ALL_TYPES, BuildOptions, build_bench, parse_list
    from ratchet.bench.data.models import REGRESSION_TYPES
    from ratchet.skills.sets import load_skills

    root = project_dir.resolve()
    from ratchet.bench.data.dataset import BenchPaths

    known_skills = sorted(load_skills(BenchPaths.at(root).skills))
    options = BuildOptions(
        skills=parse_list(skills, known_skills, "skill"),
        types=parse_list(types, ALL_TYPES, "edit type"),
        goldens=not no_goldens,
        controls=not no_controls,
        inject=not no_inject,
        yes=yes,
        work=work,
    )

    def confirm(question: str) -> bool:
        return os.isatty(0) and typer.confirm(question, default=False)

    result = build_bench(root, options, report=typer.echo, confirm=confirm)
    if result.simulated:
        typer.echo(f"{SIMULATED} — goldens and edits come from the offline simulator")
    typer.echo(f"goldens recorded: {result.goldens}")
    by_type: dict[str, list[str]] = {}
    for dropped in result.dropped:
        by_type.setdefault(dropped.type, []).append(dropped.edit_id)
    for edit_type in ALL_TYPES:
        kept, lost = result.edits.get(edit_type, 0), len(by_type.get(edit_type, []))
        if kept or lost:
            tries = f", {result.tries.get(edit_type, 0)} tries for the kept" if edit_type in REGRESSION_TYPES else ""
            typer.echo(f"{edit_type}: kept {kept}, dropped {lost}{tries}")
    for dropped in result.dropped:
        typer.echo(f"dropped {dropped.edit_id}: {dropped.reasons[-1] if dropped.reasons else 'no reason'}")
    typer.echo(f"labels: {result.labels} in labels/labels.json; dataset digest {result.digest}")
    typer.echo(f"wall time {result.wall_s:.1f}s (work area {result.work})")


@bench_app.command("validate")
def validate_command(
    no_audit: bool = typer.Option(False, "--no-audit", help="Skip the replay audit (skills, world, routing only)."),
    record_digest: bool = typer.Option(
        False, "--record-digest", help="Record this release's digest in bench/DIGESTS.json."
    ),
    work: Path | None = typer.Option(None, "--work", help="Work area (default var/bench/)."),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
) -> None:
    """Check skills, world, workspaces and routing; audit goldens and edits; print the dataset digest."""
    from ratchet.bench.build.validate import validate_bench

    report = validate_bench(
        project_dir.resolve(), audit=not no_audit, work=work, record=record_digest, report=typer.echo
    )
    typer.echo(f"dataset digest {report.digest}")
    if report.recorded:
        typer.echo(f"recorded in bench/DIGESTS.json for {report.recorded}")


@bench_app.command("label")
def label_command(
    edit_id: str | None = typer.Argument(None, help="The edit to review (default: walk the queue)."),
    status: bool = typer.Option(False, "--status", help="Show the review queue and exit."),
    agree: bool = typer.Option(False, "--agree", help="The label is right."),
    disagree: bool = typer.Option(False, "--disagree", help="The label is wrong: give --decision and/or --pair."),
    decision: Decision | None = typer.Option(None, "--decision", help="Your decision."),
    pair: list[str] = typer.Option(
        [], "--pair", help="TASK_ID=OUTCOME (same, pass, drift, regression, unsure, error); repeatable."
    ),
    reviewer: str = typer.Option("", "--reviewer", help="Who reviewed (default $USER)."),
    project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml)."),
) -> None:
    """Review labels: --status for the queue, EDIT_ID with --agree/--disagree, or walk the queue (a/r/s)."""
    from ratchet.bench.build.label_review import (
        load_edit,
        parse_pairs,
        record_review,
        render_edit,
        review_queue,
    )
    from ratchet.bench.build.labels import checked_labels
    from ratchet.bench.data.dataset import BenchPaths

    paths = BenchPaths.at(project_dir.resolve())
    who = reviewer or os.environ.get("USER", "")
    checked_labels(paths)  # a label per edit, one each: else the queue and the reviews go to the wrong edits
    if status:
        queue = review_queue(paths)
        done = sum(1 for item in queue if item.review is not None)
        typer.echo(f"review queue: {done}/{len(queue)} reviewed")
        for item in queue:
            state = (
                "stale (edit changed since review)"
                if item.stale
                else (
                    f"{item.review.verdict}" + (f" -> {item.review.decision}" if item.review.decision else "")
                    if item.review
                    else "pending"
                )
            )
            typer.echo(
                f"  {item.label.edit_id:<36} {item.label.type}  expect {item.label.expected_decision:<5}  {state}"
            )
        return
    if edit_id is not None:
        if agree == disagree:
            edit, label = load_edit(paths, edit_id)
            typer.echo(render_edit(paths, edit, label))
            if not agree:
                typer.echo("record a verdict with --agree, or --disagree --decision ... [--pair TASK=OUTCOME]")
                return
            raise InputError("give either --agree or --disagree, not both")
        review = record_review(paths, edit_id, agree=agree, decision=decision, pairs=parse_pairs(pair), reviewer=who)
        typer.echo(f"recorded: {edit_id} {review.verdict}" + (f" -> {review.decision}" if review.decision else ""))
        return
    _walk(paths, who)


def _walk(paths: object, who: str) -> None:
    """Insta-style: each pending item shows its diff and labels; a accept, r override, s skip, q quit."""
    from ratchet.bench.build.label_review import DECISIONS, load_edit, record_review, render_edit, review_queue
    from ratchet.bench.data.dataset import BenchPaths

    assert isinstance(paths, BenchPaths)
    pending = [item for item in review_queue(paths) if item.review is None]
    if not pending:
        typer.echo("review queue is empty")
        return
    accepted = overridden = skipped = 0
    for number, item in enumerate(pending, start=1):
        edit, label = load_edit(paths, item.label.edit_id)
        typer.echo(f"\n[{number}/{len(pending)}] " + render_edit(paths, edit, label))
        key = typer.prompt("a accept, r reject/override, s skip, q quit", default="s").strip().lower()
        if key == "q":
            break
        if key == "a":
            record_review(paths, edit.id, agree=True, reviewer=who)
            accepted += 1
        elif key == "r":
            choice = typer.prompt("your decision (PASS, WARN, BLOCK)").strip().upper()
            if choice not in DECISIONS:
                typer.echo(f"not a decision: {choice!r}; skipped")
                skipped += 1
                continue
            record_review(paths, edit.id, agree=False, decision=choice, reviewer=who)
            overridden += 1
        else:
            skipped += 1
    typer.echo(f"accepted {accepted}, overridden {overridden}, skipped {skipped}")


@bench_app.command("calibrate")
def calibrate_command(
    results: Path = typer.Option(
        Path("bench/results/smoke-sim"), "--results", help="Results directory to read labeled opinions from."
    ),
    config: str = typer.Option(
        "cascade", "--config", help="Base gate config (a name or a YAML path) whose tiers are calibrated."
    ),
    alpha: float = typer.Option(
        0.1, "--alpha", help="Accepted opinions may disagree with the label at most this often."
    ),
    delta: float = typer.Option(0.1, "--delta", help="... with probability at least 1 - delta."),
    seed: int = typer.Option(0, "--seed", help="Seed of the train / calibration / held-out split."),
    write: Path | None = typer.Option(
        None, "--write", help="Also write the base config with calibrated thresholds here."
    ),
    root: Path = typer.Option(Path("."), "--root", help="Project root (its configs/ override the packaged ones)."),
) -> None:
    """Pick each judge tier's confidence threshold on labeled pairs (Trust or Escalate); report held-out coverage."""
    from ratchet.bench.report.calibrate import calibrate_results, summary_lines

    run = calibrate_results(results, config=config, alpha=alpha, delta=delta, seed=seed, write=write, project_root=root)
    for line in summary_lines(run.calibration):
        typer.echo(line)
    for path in run.written:
        typer.echo(f"wrote {path}")


# run, report, compare, smoke, mutate and selftest live in ratchet/cli/bench_run.py.
bench_run.register(bench_app)
