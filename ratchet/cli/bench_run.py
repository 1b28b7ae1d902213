"""`ratchet bench run | merge | report | compare | smoke | mutate | selftest`: thin commands over ratchet.bench."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import typer


def _command_line(
    config: str,
    out: Path,
    limit: int | None,
    types: str,
    seed: int,
    live_tavily: bool,
    concurrency: int,
    noise: float | None = None,
    bless_repeats: int | None = None,
    strip_faults: bool = False,
) -> str:
    """The canonical command line of a run (what results.json and the report quote).

    Never --shard: every shard of a run records the unsharded command, so the merged results.json
    is the one an unsharded run writes.
    """
    parts = ["ratchet", "bench", "run", "--config", Path(config).as_posix(), "--out", out.as_posix()]
    if limit is not None:
        parts += ["--limit", str(limit)]
    if types:
        parts += ["--types", types]
    parts += ["--seed", str(seed)]
    if live_tavily:
        parts.append("--live-tavily")
    if concurrency != 2:
        parts += ["--concurrency", str(concurrency)]
    if noise is not None:
        parts += ["--noise", f"{noise:g}"]
    if bless_repeats is not None:
        parts += ["--bless-repeats", str(bless_repeats)]
    if strip_faults:
        parts.append("--strip-faults")
    return shlex.join(parts)


def run_command(
    config: str = typer.Option(
        ...,
        "--config",
        help="Gate config: a name (cascade, nano_only, ...; the project's configs/<name>.yaml "
        "overrides the packaged one) or a YAML path.",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="Results directory (default on the simulator: bench/results/smoke-sim)."
    ),
    limit: int | None = typer.Option(
        None, "--limit", min=1, help="Seeded sample stratified by type (goldens for noise)."
    ),
    types: str = typer.Option("", "--types", help="Only these edit types, e.g. R1,N0."),
    seed: int = typer.Option(0, "--seed", help="Sampling seed: the same seed gives the same subset in every config."),
    live_tavily: bool = typer.Option(False, "--live-tavily", help="Confirm drift with live Tavily search."),
    concurrency: int = typer.Option(
        2, "--concurrency", min=1, max=32, help="Workers for edits and the pairs inside them (one pool)."
    ),
    yes: bool = typer.Option(False, "--yes", help="Spend on live models without asking."),
    root: Path = typer.Option(Path("."), "--root", help="The dataset's project root."),
    work: Path | None = typer.Option(None, "--work", help="Bench work area (store, caches; default var/bench)."),
    shard: str | None = typer.Option(
        None,
        "--shard",
        metavar="K/N",
        help="Score only shard K of N of the items, into <out>/shards/K-of-N/ (partial: combine with bench merge).",
    ),
    noise: float | None = typer.Option(
        None,
        "--noise",
        min=0.0,
        max=1.0,
        metavar="P",
        help="Simulator only: the chance a replay varies (reworded framing or an added line); default: the "
        "config's sim_noise (0 except `noise`).",
    ),
    bless_repeats: int | None = typer.Option(
        None,
        "--bless-repeats",
        min=0,
        metavar="N",
        help="Measure every golden's noise record with N replays first, and gate with it (default: 30 when the "
        "noise is on, else 0).",
    ),
    ledger_hits: bool = typer.Option(
        False,
        "--ledger-hits",
        help="Write a $0 ledger row per cache hit (default: only counted per run; see docs/ledger.md).",
    ),
    executor: str = typer.Option(
        "local",
        "--executor",
        metavar="local|ray",
        help="Where the items are scored: this process, or Ray tasks (--concurrency actors; the optional ray extra)"
        "; the results files are the same.",
    ),
    ray_address: str | None = typer.Option(
        None,
        "--ray-address",
        metavar="ADDR",
        help="With --executor ray: an existing cluster (host:port) whose nodes see this project at the same "
        "paths (default: a local Ray on loopback, started for the run).",
    ),
    strip_faults: bool = typer.Option(
        False,
        "--strip-faults",
        help="Score against goldens of the same tasks re-recorded without their seeded faults (stored as "
        "<config>_faults_stripped): what R7 detection is without faults in the goldens.",
    ),
) -> None:
    """Run one configuration over the labeled edits (resumable; paired; replay reuse).

    With --shard K/N every shard is given the same --out; `ratchet bench merge` then writes the
    results directory the unsharded run writes, byte for byte.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ratchet.bench.run.run import SMOKE_DIR, RunOptions, run_config
    from ratchet.config.gate import gate_config_path
    from ratchet.config.project import load_project
    from ratchet.gate.shard import Shard

    if executor not in ("local", "ray"):
        raise typer.BadParameter(f"{executor!r} is not local or ray", param_hint="--executor")
    if ray_address is not None and executor != "ray":
        raise typer.BadParameter("only with --executor ray", param_hint="--ray-address")
    part = Shard.parse(shard) if shard is not None else None
    config_path = gate_config_path(config, project_root=root)
    simulated = load_project(root, home=work).config.upstream == "sim"
    if out is None:
        if not simulated:
            raise typer.BadParameter("a live run needs --out bench/results/<date>/", param_hint="--out")
        out = root / SMOKE_DIR
    kinds = tuple(t.strip() for t in types.split(",") if t.strip())
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as progress:
        bar = progress.add_task(config_path.stem, total=None)

        def on_progress(done: int, total: int, item: str) -> None:
            progress.update(bar, completed=done, total=total, description=f"{config_path.stem} {item}".strip())

        summary = run_config(
            RunOptions(
                config_path=config_path,
                out=out,
                root=root,
                home=work,
                limit=limit,
                types=kinds,
                seed=seed,
                live_tavily=live_tavily,
                concurrency=concurrency,
                yes=yes,
                shard=part,
                noise=noise,
                bless_repeats=bless_repeats,
                ledger_hits=ledger_hits,
                executor=executor,
                ray_address=ray_address,
                strip_faults=strip_faults,
                command=_command_line(
                    config, out, limit, types, seed, live_tavily, concurrency, noise, bless_repeats, strip_faults
                ),
                on_progress=on_progress,
                confirm=lambda q: typer.confirm(q, default=False),
                echo=typer.echo,
            )
        )
    if summary.shard is None:
        typer.echo(
            f"{summary.config} ({summary.mode}): {summary.ran} run, {summary.skipped} already in "
            f"{summary.written}; {summary.total} in the sample"
        )
        return
    typer.echo(
        f"{summary.config} ({summary.mode}) PARTIAL shard {summary.shard.label}: {summary.ran} run, "
        f"{summary.skipped} already in {summary.written}; {summary.total} of {summary.sample} in the sample; "
        f"ratchet bench merge all {summary.shard.count} shards into {summary.out}"
    )


def merge_command(
    shard_dirs: list[Path] = typer.Argument(
        ..., metavar="SHARD_DIR...", help="Every <out>/shards/K-of-N/ folder of one sharded run, in any order."
    ),
    out: Path = typer.Option(..., "--out", help="The run's results directory (the --out its shards were given)."),
) -> None:
    """Combine the shards of `bench run --shard K/N` into the results directory one unsharded run writes.

    results.json, summary.json, report.md and the figure are the unsharded run's, byte for byte.
    Exit 2 (one line) for shards of different runs, a shard missing, given twice or unfinished.
    """
    from ratchet.bench.run.sharded import merge_bench_shards

    merged = merge_bench_shards(shard_dirs, out)
    typer.echo(
        f"merged {merged.shards} shards ({', '.join(merged.configs)}) into {out / 'results.json'} and {merged.report}"
    )


def report_command(out: Path = typer.Argument(..., help="Results directory holding results.json.")) -> None:
    """Re-render report.md and cost_vs_recall.svg from results.json (no model call)."""
    from ratchet.bench.report.report import write_report

    path = write_report(out)
    typer.echo(f"wrote {path}")


def compare_command(
    a: Path = typer.Argument(..., help="Results directory A."),
    b: Path = typer.Argument(..., help="Results directory B."),
) -> None:
    """Per metric and type: A, B and the difference; flags changes larger than the noise floor."""
    from ratchet.bench.report.compare import compare_dirs

    typer.echo(compare_dirs(a, b), nl=False)


def smoke_command(
    root: Path = typer.Option(Path("."), "--root", help="The dataset's project root."),
    work: Path | None = typer.Option(None, "--work", help="Bench work area (default var/bench)."),
    limit: int | None = typer.Option(None, "--limit", min=1, help="Edits per configuration (all by default)."),
    build: bool = typer.Option(True, "--build/--no-build", help="Build the dataset first."),
) -> None:
    """Simulator only: build, then every configuration and the shipped goldens' mutation score (`bench mutate`),
    into bench/results/smoke-sim/. Offline, no keys."""
    from ratchet.bench.run.smoke import run_smoke

    result = run_smoke(root, work=work, limit=limit, build=build, echo=typer.echo)
    typer.echo(f"smoke: {len(result.configs)} configurations in {result.wall_s:.1f}s -> {result.out}")


def mutate_command(
    root: Path = typer.Option(Path("."), "--root", help="The dataset's project root."),
    work: Path | None = typer.Option(None, "--work", help="Bench work area (default var/bench): its cache is shared."),
    out: Path | None = typer.Option(
        None, "--out", help="Results directory to add the score to (default bench/results/smoke-sim)."
    ),
    limit: int = typer.Option(
        12, "--limit", min=1, help="At most N mutants per skill, taken in turn from each class (R1-R6)."
    ),
    every: bool = typer.Option(False, "--all", help="Every mutant the operators make (no --limit)."),
    seed: int = typer.Option(0, "--seed", help="Seeds the operators: the same seed makes the same mutants."),
) -> None:
    """Simulator only: the shipped goldens' mutation score per skill and class, into a results directory's
    results.json (else its summary.json), and its report re-rendered beside each skill's detection recall.

    `ratchet mutate` over a scratch repository holding the shipped skills, tasks, world and goldens; the
    checks share the work area's response cache. `ratchet bench smoke` runs it with the defaults.
    """
    from ratchet.bench.report.report import write_report
    from ratchet.bench.run.mutation import measure_mutation, open_results, store_mutation
    from ratchet.bench.run.run import SMOKE_DIR

    folder = out if out is not None else root / SMOKE_DIR
    open_results(folder, root=root)  # refused before anything runs: no results there, or another dataset's
    mutation = measure_mutation(root, work=work, limit=None if every else limit, seed=seed)
    store_mutation(folder, mutation, root=root)
    killed, checked = sum(s.killed for s in mutation.skills), sum(s.checked for s in mutation.skills)
    typer.echo(f"mutation: {killed} of {checked} mutants killed; wrote {write_report(folder)}")


def selftest_command(
    root: Path = typer.Option(Path("."), "--root", help="Project root whose labels the oracle reads."),
) -> None:
    """Three scripted gates (oracle, pass-everything, block-everything) through the real metrics and report."""
    from ratchet.bench.report.selftest import run_selftest
    from ratchet.config.project import project_root

    outcome = run_selftest(project_root(root))  # no project there is fine (synthetic labels); a file is not
    typer.echo(outcome.render(), nl=False)
    if not outcome.passed:
        raise typer.Exit(1)


def register(bench_app: typer.Typer) -> None:
    """Add run, merge, report, compare, smoke, mutate and selftest to the `ratchet bench` sub-app."""
    bench_app.command("run")(run_command)
    bench_app.command("merge")(merge_command)
    bench_app.command("report")(report_command)
    bench_app.command("compare")(compare_command)
    bench_app.command("smoke")(smoke_command)
    bench_app.command("mutate")(mutate_command)
    bench_app.command("selftest")(selftest_command)


def _standalone() -> typer.Typer:
    """A `bench`-only app, for subprocess tests that must not depend on the rest of the CLI."""
    from ratchet.cli import _wrap_commands

    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False, no_args_is_help=True)
    register(app)
    _wrap_commands(app)
    return app


if __name__ == "__main__":  # python -m ratchet.cli.bench_run run --config ...
    sys.exit(_standalone()())
