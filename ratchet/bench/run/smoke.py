"""`ratchet bench smoke`: the simulator end to end. Build, every configuration, the shipped goldens' mutation
score (ratchet.bench.run.mutation), the report and the judges' calibration (calibration.md); offline, no keys.

It always runs on the simulator (whatever RATCHET_UPSTREAM says) and always writes to
bench/results/smoke-sim/, which it empties first so the directory is one coherent set.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ratchet.bench.data.results import FIGURE_FILE, REPLAYS_DIR, REPORT_FILE, RESULTS_FILE, TIMINGS_FILE
from ratchet.bench.report.report import write_report
from ratchet.bench.run.mutation import MUTANTS_PER_SKILL, measure_mutation, store_mutation
from ratchet.bench.run.run import SMOKE_DIR, RunOptions, check_bench_tiers, run_config, share_inputs
from ratchet.config.env import on_the_simulator
from ratchet.config.gate import gate_config_path, load_gate_config
from ratchet.config.project import load_project

SMOKE_ORDER = ("noise", "cascade", "nano_only", "super_only", "ultra_only", "drift_off", "level0_off", "state_diff_off")
STRIPPED_TYPES = ("R7", "F0")
"""What the stripped-goldens run scores: the edits whose goldens carry faults (R7 and its controls)."""
CONCURRENCY = 1
"""One worker: the smoke runs on the simulator, where a call waits for nothing, so a second thread only takes
turns at the GIL with the first (benchmarks/smoke_cpu.py on 2 cores: two workers took more CPU seconds and
were no faster; CHANGELOG). The results do not depend on it (ratchet.core.pool keeps the items' order)."""


@dataclass
class SmokeResult:
    out: Path
    configs: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    build_s: float = 0.0
    mutate_s: float = 0.0


def _clear(out: Path) -> None:
    for name in (RESULTS_FILE, TIMINGS_FILE, REPORT_FILE, FIGURE_FILE):
        (out / name).unlink(missing_ok=True)
    shutil.rmtree(out / REPLAYS_DIR, ignore_errors=True)


def run_smoke(
    root: Path,
    *,
    work: Path | None = None,
    limit: int | None = None,
    build: bool = True,
    configs: tuple[str, ...] = SMOKE_ORDER,
    echo: Callable[[str], None] = lambda _line: None,
) -> SmokeResult:
    """Build (unless `build` is False), then run `configs` in order into bench/results/smoke-sim/, on the simulator
    whatever the shell says (smoke is offline by definition)."""
    with on_the_simulator():
        return _run_smoke(root, work=work, limit=limit, build=build, configs=configs, echo=echo)


def _run_smoke(
    root: Path,
    *,
    work: Path | None,
    limit: int | None,
    build: bool,
    configs: tuple[str, ...],
    echo: Callable[[str], None],
) -> SmokeResult:
    # Every config is loaded and its tiers checked first: a bad one is exit 2 before the build, not after the runs before it.
    tiers = load_project(root, home=work).config.tiers
    paths = {name: gate_config_path(name, project_root=root) for name in configs}
    for path in paths.values():
        check_bench_tiers(load_gate_config(path, project_root=root), tiers, path)
    started = time.perf_counter()
    result = SmokeResult(out=root / SMOKE_DIR)
    if build:
        from ratchet.bench.build.build import BuildOptions, build_bench

        build_bench(root, BuildOptions(work=work), report=echo)
        result.build_s = round(time.perf_counter() - started, 2)
        echo(f"build: {result.build_s:.1f}s")
    out = result.out
    out.mkdir(parents=True, exist_ok=True)
    _clear(out)
    # The dataset and its diffs read once, and each run's results handed to the next: the same for every config.
    shared = share_inputs(root, home=work, out=out)
    for name in configs:
        command = (
            f"ratchet bench run --config {name} --out {SMOKE_DIR.as_posix()}"
            + (f" --limit {limit}" if limit is not None else "")
            + f" --seed 0 --concurrency {CONCURRENCY}"
        )
        t0 = time.perf_counter()
        summary = run_config(
            RunOptions(
                config_path=paths[name],
                out=out,
                root=root,
                home=work,
                limit=limit,
                concurrency=CONCURRENCY,
                command=command,
                shared=shared,
            )
        )
        echo(f"{name} ({summary.mode}): {summary.ran} in {time.perf_counter() - t0:.1f}s")
        result.configs.append(name)
    if "cascade" in configs:
        # R7 without faults in the goldens: the same edits against goldens re-recorded on a world that never fails.
        types = ",".join(STRIPPED_TYPES)
        command = (
            f"ratchet bench run --config cascade --out {SMOKE_DIR.as_posix()}"
            + (f" --limit {limit}" if limit is not None else "")
            + f" --types {types} --seed 0 --concurrency {CONCURRENCY} --strip-faults"
        )
        t0 = time.perf_counter()
        summary = run_config(
            RunOptions(
                config_path=paths["cascade"],
                out=out,
                root=root,
                home=work,
                limit=limit,
                types=STRIPPED_TYPES,
                concurrency=CONCURRENCY,
                command=command,
                strip_faults=True,
                shared=shared,
            )
        )
        echo(f"{summary.config} ({summary.mode}): {summary.ran} in {time.perf_counter() - t0:.1f}s")
        result.configs.append(summary.config)
    # The shipped goldens' mutation score, set beside each skill's recall in the report (a per-skill limit keeps
    # it to a fraction of the smoke; `ratchet bench mutate --all` measures every mutant).
    t0 = time.perf_counter()
    mutation = measure_mutation(root, work=work, limit=MUTANTS_PER_SKILL, seed=0, concurrency=CONCURRENCY)
    # The results as the last run wrote them, handed on instead of reading results.json back three times.
    results = store_mutation(out, mutation, root=root, results=shared.results)
    result.mutate_s = round(time.perf_counter() - t0, 2)
    killed, checked = sum(s.killed for s in mutation.skills), sum(s.checked for s in mutation.skills)
    echo(f"mutation ({MUTANTS_PER_SKILL} per skill): {killed} of {checked} mutants killed in {result.mutate_s:.1f}s")
    write_report(out, results=results)
    if set(configs) >= {"nano_only", "super_only", "ultra_only"}:
        from ratchet.bench.report.calibrate import calibrate_results

        # Trust or Escalate on the smoke's labels (no model call): calibration.md says what the machinery picks.
        calibrate_results(out, config="cascade", alpha=0.1, delta=0.1, seed=0, project_root=root, results=results)
    result.wall_s = round(time.perf_counter() - started, 2)
    return result
