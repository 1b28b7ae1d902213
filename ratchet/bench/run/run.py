"""`ratchet bench run`: one configuration over the labeled edits, into a results directory.

Resumable (an edit already in results.json or the run's journal is skipped; the journal is the
durable record, and results.json is written atomically once, at the end), paired (seeded stratified sampling, see
sampling.py), and frugal: the re-judging configurations read the cascade run's stored
replays and make no agent call. The `noise` configuration (E6) replays goldens with the
unchanged skills `replays_per_golden` times instead. See docs/adr/0009-bench-runs.md.
Dataset loading lives in ratchet.bench.build.benchdata, scoring one item in scorer.py, the thread-pool loop in
schedule.py. With `shard`, the run scores only its shard's items, under <out>/shards/K-of-N/
(sharded.py says why edits, not pairs).
Each edit's behavioural diff (ratchet.bench.report.diffs) goes to its judges, as a check's does, and the diff classifier
measured on the dataset goes into results.json for the report.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ratchet.bench.build.benchdata import DATED_DIR
from ratchet.bench.build.benchdata import BenchData as BenchData
from ratchet.bench.build.benchdata import load_bench_data as load_bench_data
from ratchet.bench.data.journal import merge_journal
from ratchet.bench.data.results import (
    RESULTS_FILE,
    SHARD_FILE,
    BenchConfigRun,
    BenchResults,
    DiffClassifierRun,
    read_results,
    read_timings,
    replays_path,
    write_results,
    write_timings,
)
from ratchet.bench.report.diffs import bench_diffs
from ratchet.bench.run.noisy import measure_records, noise_settings
from ratchet.bench.run.plan import REJUDGE_CONFIGS as REJUDGE_CONFIGS
from ratchet.bench.run.plan import Mode, candidate_ids, plan_calls, run_mode
from ratchet.bench.run.plan import sample_ids as sample_ids
from ratchet.bench.run.schedule import ItemPool, execute
from ratchet.bench.run.scorer import RECORDING_CONFIG, Scorer
from ratchet.bench.run.sharded import open_shard
from ratchet.bench.run.stripped import strip_faults, stripped_config
from ratchet.config.gate import GateConfig, check_judge_tiers, load_gate_config
from ratchet.config.project import Project
from ratchet.core.chat import ChatModel
from ratchet.core.errors import BudgetError, ConfigError, InputError
from ratchet.core.pool import WorkPool
from ratchet.diff.models import EditDiff
from ratchet.gate.models import EditReplays
from ratchet.gate.shard import Shard
from ratchet.llm.budget import PER_CALL_BUDGETS, Estimate, check_affordable, estimate
from ratchet.llm.gateway import Gateway
from ratchet.llm.preflight import preflight_config
from ratchet.sim.models import SIMULATOR, sim_model_for
from ratchet.store.db import open_store

SMOKE_DIR = Path("bench") / "results" / "smoke-sim"


@dataclass
class RunOptions:
    """Everything `bench run` takes; `command` is the exact command line, kept in results.json."""

    config_path: Path
    out: Path
    root: Path
    home: Path | None = None
    limit: int | None = None
    types: tuple[str, ...] = ()
    seed: int = 0
    live_tavily: bool = False
    concurrency: int = 2
    yes: bool = False
    command: str = ""
    shard: Shard | None = None
    noise: float | None = None
    """The simulator's noise chance (None: the configuration's sim_noise); see ratchet.bench.run.noisy."""
    bless_repeats: int | None = None
    """Repeats per golden measuring its noise record (None: 30 when the noise is on, else 0)."""
    ledger_hits: bool = False
    """Write a $0 ledger row per cache hit (Gateway(ledger_hits=)); else hits are only counted per run."""
    executor: str = "local"
    """"local": this process's pool; "ray": Ray tasks (ratchet.bench.run.ray_exec), results written as local."""
    ray_address: str | None = None
    """An existing Ray cluster (None: a local one on loopback, started for the run)."""
    strip_faults: bool = False
    """Score against goldens re-recorded without their seeded faults (ratchet.bench.run.stripped)."""
    shared: SharedInputs | None = None
    """What consecutive runs into one results directory share (the smoke's); None: this run reads its own."""
    on_progress: Callable[[int, int, str], None] | None = None
    confirm: Callable[[str], bool] | None = None
    echo: Callable[[str], None] = field(default=lambda _line: None)


@dataclass
class SharedInputs:
    """What one process's consecutive runs into one results directory read the same (`ratchet bench smoke`'s
    configurations): the dataset, its edits' diffs and the classifier measured on them (each run's start-up
    work, seconds of it), and the directory's results as the last run left them.

    Only for runs over a dataset and a directory nothing else changes meanwhile: run_config sets `results` to
    what it wrote once it has written it, and the next run starts from them instead of reading results.json
    back (23 MB on the smoke). A run that fails leaves `results` None: the next one reads the file.
    """

    data: BenchData
    diffs: dict[str, EditDiff]
    classifier: DiffClassifierRun
    results: BenchResults | None = None
    replays: dict[Path, EditReplays] = field(default_factory=dict)
    """Replays files the runs have read, by path (the re-judging runs read the recording run's once)."""


def share_inputs(root: Path, *, home: Path | None, out: Path) -> SharedInputs:
    """The dataset under `root` and its diffs, read once for every run into `out` (load_bench_data, bench_diffs)."""
    data = load_bench_data(root, home=home, results_dir=out)
    diffs, classifier = bench_diffs(data)
    return SharedInputs(data=data, diffs=diffs, classifier=classifier)


@dataclass
class RunSummary:
    config: str
    mode: Mode
    total: int
    skipped: int
    ran: int
    estimate: Estimate | None
    run_id: str
    out: Path
    written: Path
    """The file holding the results: <out>/results.json, or a shard's shard.json."""
    sample: int
    """Items in the whole run's sample (`total` is this invocation's part: the shard's, when sharded)."""
    shard: Shard | None = None


def _check_out_dir(out: Path, simulated: bool, results: BenchResults) -> None:
    if simulated and DATED_DIR.match(out.resolve().name):
        raise InputError(
            f"simulated results never go into a dated directory ({out}); use {SMOKE_DIR}/ "
            "or set RATCHET_UPSTREAM=live for a real run"
        )
    mixed = [name for name, run in results.runs.items() if run.simulated != simulated]
    if mixed:
        kind = "simulated" if not simulated else "live"
        raise InputError(
            f"{out} holds {kind} runs ({', '.join(sorted(mixed))}); give live and simulated runs separate --out directories"
        )


def _refuse_without_cascade(
    results: BenchResults, opts: RunOptions, config: GateConfig, ids: list[str], dest: Path
) -> None:
    cascade = results.runs.get(RECORDING_CONFIG)
    shard = f" --shard {opts.shard.label}" if opts.shard is not None else ""
    hint = (
        f"run `ratchet bench run --config {RECORDING_CONFIG} --out {opts.out}{shard}` first, "
        "with the same --limit, --seed and --types"
    )
    if cascade is None:
        raise InputError(
            f"{config.name} re-judges the {RECORDING_CONFIG} run's replays, but {opts.out} has no {RECORDING_CONFIG} run: {hint}"
        )
    missing = [i for i in ids if i not in cascade.edits or not replays_path(dest, RECORDING_CONFIG, i).exists()]
    if missing:
        raise InputError(
            f"{len(missing)} edit(s) have no {RECORDING_CONFIG} replays in {opts.out} (first {missing[0]}): {hint}"
        )


def check_bench_tiers(config: GateConfig, configured: Collection[str], config_path: Path) -> None:
    """Before anything is priced or run: every judge tier of the config can judge (the check's own rule,
    `configured` being ratchet.yaml's tiers) and is one the bench can price."""
    check_judge_tiers(config, configured, source=config_path)
    priced = sorted(kind.removeprefix("judge-") for kind in PER_CALL_BUDGETS if kind.startswith("judge-"))
    usable = [tier for tier in priced if tier in configured]
    for step in config.tiers:
        if step.tier not in usable:
            raise ConfigError(
                f"unknown judge tier {step.tier!r}: the bench runs {', '.join(usable)} (ratchet.yaml "
                "tiers with a per-call budget); name one of them",
                path=config_path,
            )


def run_config(opts: RunOptions) -> RunSummary:
    """Run one configuration into opts.out; see the module docstring."""
    if opts.executor == "ray":
        from ratchet.bench.run.ray_exec import require_ray

        require_ray()  # before anything runs: one line naming the extra
    config = load_gate_config(opts.config_path, project_root=opts.root)
    if opts.strip_faults:
        if opts.executor == "ray":
            raise InputError("--strip-faults runs in this process: leave out --executor ray")
        config = stripped_config(config)
    shared = opts.shared
    data = shared.data if shared is not None else load_bench_data(opts.root, home=opts.home, results_dir=opts.out)
    project: Project = data.project
    check_bench_tiers(config, project.config.tiers, opts.config_path)
    simulated = project.config.upstream == "sim"
    noise = noise_settings(config, noise=opts.noise, bless_repeats=opts.bless_repeats, simulated=simulated)
    mode = run_mode(config, repeats=noise.measures)
    # Before the results directory is read or written and before the estimate: the tiers this run will
    # call (a re-judging run replays no agent) exist and, live, answer and serve their models.
    judged = [stage.tier for stage in config.tiers]
    preflight_config(project.config, judged if mode == "rejudge" else ["agent", *judged], named_by=opts.config_path)
    sample = sample_ids(data, config, opts.limit, opts.types, opts.seed)
    dest, results, ids, write = _open_results(opts, data, config, sample)
    merge_journal(dest, results)
    _check_out_dir(opts.out, simulated, results)
    if results.dataset_digest and results.dataset_digest != data.digest:
        raise InputError(
            f"{opts.out} holds results for dataset {results.dataset_digest[:12]}, not {data.digest[:12]}: "
            "use a new --out directory"
        )
    if mode == "rejudge":
        _refuse_without_cascade(results, opts, config, ids, dest)
    existing = results.runs.get(config.name)
    if (
        existing is not None
        and (existing.edits or existing.noise)
        and (existing.sim_noise, existing.bless_repeats) != (noise.sim_noise, noise.bless_repeats)
    ):
        raise InputError(
            f"{opts.out} holds a {config.name} run at noise {existing.sim_noise:g} with "
            f"{existing.bless_repeats} bless repeats, not {noise.sim_noise:g} with {noise.bless_repeats}: "
            "resume it with the same --noise and --bless-repeats, or use a new --out directory"
        )
    done = set(existing.noise if mode == "noise" else existing.edits) if existing is not None else set()
    pending = [i for i in ids if i not in done]
    # Every labeled edit's diff and the classifier measured on them: no model, deterministic, a second or two.
    diffs, classifier = (shared.diffs, shared.classifier) if shared is not None else bench_diffs(data)
    home = project.home
    with closing(open_store(home)) as store:
        plan = estimate(project.config, plan_calls(data, config, pending, noise), store=store) if pending else None
        if plan is not None:
            opts.echo(plan.render() + ("  (simulated: no money is spent)" if simulated else ""))
            if not simulated:
                check_affordable(store, plan)
                if not opts.yes and not (
                    opts.confirm is not None and opts.confirm(f"Spend up to ${plan.total_usd:.4f}?")
                ):
                    raise BudgetError("live run not confirmed: pass --yes (or answer yes) to spend")
        overrides: dict[str, ChatModel] = {}
        if simulated and noise.sim_noise > 0:
            overrides["agent"] = sim_model_for("agent", noise=noise.sim_noise)
        run_id = f"bench-{config.name}-{uuid.uuid4().hex[:12]}"
        gateway = Gateway(
            project,
            store,
            simulator=SIMULATOR,
            run_id=run_id,
            upstream_models=overrides,
            ledger_hits=opts.ledger_hits,
        )
        with gateway, WorkPool(opts.concurrency, name="ratchet-bench") as pool:
            measured = measure_records(data, noise, gateway.model("agent", "bless"), pool) if pending else None
            if measured is not None and measured.refused:
                raise InputError(
                    f"{len(measured.refused)} golden(s) could not be measured for noise, first {measured.refused[0]}"
                )
            records = measured.records if measured is not None else {}
            if opts.strip_faults and pending:
                data = strip_faults(data, gateway.model("agent", "bless"))
            recorded = results.runs[RECORDING_CONFIG].edits if mode == "rejudge" else {}
            triggers = {edit_id: e.triggers for edit_id, e in recorded.items() if e.triggers is not None}
            stored = shared.replays if shared is not None else None
            runner = Scorer(
                data, config, opts.live_tavily, gateway, home, pool, dest, mode, records, diffs, triggers, stored
            )
            models = {
                tier: gateway.upstream(tier).model_id
                for tier in (["agent"] if mode != "rejudge" else []) + [s.tier for s in config.tiers]
            }
            if mode == "rejudge":
                models["agent"] = results.runs[RECORDING_CONFIG].models.get("agent", "")
            run = existing or BenchConfigRun(config=config.name, command=opts.command, simulated=simulated)
            run = run.model_copy(
                update={
                    "description": config.description,
                    "config_path": os.path.relpath(opts.config_path.resolve(), opts.out.resolve()),
                    "command": opts.command,
                    "models": dict(sorted(models.items())),
                    "seed": opts.seed,
                    "limit": opts.limit,
                    "types": sorted(opts.types),
                    "mode": mode,
                    "replays_from": RECORDING_CONFIG if mode == "rejudge" else None,
                    "sim_noise": noise.sim_noise,
                    "bless_repeats": noise.bless_repeats,
                    "flips": {tid: [r.differed, r.repeats] for tid, r in sorted(records.items())} or run.flips,
                }
            )
            results.dataset_digest = data.digest
            results.dataset = data.info
            results.diff_classifier = classifier
            results.runs[config.name] = run
            timings = read_timings(dest)
            timings.run_ids.setdefault(config.name, []).append(run_id)
            if plan is not None:
                timings.estimates_usd[config.name] = round(plan.total_usd, 6)
            write_timings(
                dest, timings
            )  # results.json is written once, at the end; the journal holds the run until then
            work = runner.score_golden if mode == "noise" else runner.score_edit
            agent_noise = noise.sim_noise if "agent" in overrides else 0.0
            with _items_pool(opts, pool, runner, run_id, min(opts.concurrency, len(pending)), agent_noise) as items:
                execute(
                    work,
                    run,
                    results,
                    timings,
                    pending,
                    out=dest,
                    pool=items,
                    write=write,
                    on_progress=opts.on_progress,
                    total=len(ids),
                )
    if shared is not None and opts.shard is None:
        shared.results = results  # what execute just wrote to results.json
    written = dest / (SHARD_FILE if opts.shard is not None else RESULTS_FILE)
    return RunSummary(
        config=config.name,
        mode=mode,
        total=len(ids),
        skipped=len(ids) - len(pending),
        ran=len(pending),
        estimate=plan,
        run_id=run_id,
        out=opts.out,
        written=written,
        sample=len(sample),
        shard=opts.shard,
    )


@contextmanager
def _items_pool(
    opts: RunOptions, pool: WorkPool, runner: Scorer, run_id: str, workers: int, agent_noise: float
) -> Iterator[ItemPool]:
    """Where the items are scored: the run's own pool, or Ray actors building the same Scorer."""
    if opts.executor != "ray" or workers < 1:
        yield pool
        return
    from ratchet.bench.run.ray_exec import WorkerSpec, ray_items

    spec = WorkerSpec(
        config_path=opts.config_path.resolve(),
        root=opts.root.resolve(),
        home=opts.home.resolve() if opts.home is not None else None,
        results_dir=opts.out.resolve(),
        dest=runner.dest.resolve(),
        live_tavily=opts.live_tavily,
        mode=runner.mode,
        records=runner.records,
        diffs=runner.diffs,
        triggers=runner.recorded_triggers,
        agent_noise=agent_noise,
        ledger_hits=opts.ledger_hits,
        run_id=run_id,
    )
    with ray_items(spec, workers, opts.ray_address) as items:
        yield items


def _open_results(
    opts: RunOptions, data: BenchData, config: GateConfig, sample: list[str]
) -> tuple[Path, BenchResults, list[str], Callable[[Path, BenchResults], None]]:
    """Where this run writes, what is there already, the ids it scores, and how it saves results.

    Unsharded: opts.out and its results.json, the whole sample. A shard: its folder under opts.out,
    its shard.json, and the sample's ids it owns (ratchet.bench.run.sharded.open_shard).
    """
    if opts.shard is None:
        shared = opts.shared
        results = shared.results if shared is not None and shared.results is not None else read_results(opts.out)
        if shared is not None:
            shared.results = None  # until this run has written its own: a failure from here on leaves the file to read
        return opts.out, results, sample, write_results
    return open_shard(opts.out, opts.shard, config.name, candidate_ids(data, config), sample)


def rejudge_ledger_replays(home: Path, run_ids: Mapping[str, list[str]], config: str) -> int:
    """How many agent replay calls a configuration's runs made (0 for a re-judging one)."""
    with closing(open_store(home)) as store:
        # Store.calls counts cache hits too: they are rolled up per run, not ledgered row by row.
        return sum(store.calls(rid, purpose="replay") for rid in run_ids.get(config, []))
