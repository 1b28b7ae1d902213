"""Bytes a bench run writes to results.json: every RESULTS_EVERY=25 items and at the end (before) vs at the end only.

Runs `ratchet bench run --config cascade --limit 40` (or --configs in turn, as a smoke does) twice
on the simulator, in this process, over a copy of the built work area (var/bench, or --work),
each into a fresh --out directory, and counts the bytes handed to atomic_write_text per file kind
(results.json, timings.json, journal entries) by wrapping it in this process; the product is not
changed. `before` replays the former schedule
exactly: after every 25th finished item (journaled first) results.json and timings.json are
rewritten, as ratchet/bench/run/schedule.py did. Both runs write results.json once as they start
(ratchet/bench/run/run.py) and once at the end.
Run: .venv/bin/python benchmarks/results_writes.py [--limit N] [--configs A,B] [--work DIR]
(a whole smoke: --limit 0 --configs noise,cascade,nano_only,super_only,ultra_only,drift_off,level0_off)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.bench.data import results as results_module
from ratchet.bench.data.journal import JOURNAL_DIR
from ratchet.bench.data.results import RESULTS_FILE, TIMINGS_FILE, write_timings
from ratchet.bench.run import run as run_module
from ratchet.bench.run import schedule as schedule_module
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.bench.run.smoke import SMOKE_ORDER
from ratchet.config.gate import gate_config_path

ROOT = Path(__file__).resolve().parents[1]
FORMER_RESULTS_EVERY = 25


def _kind(path: Path) -> str:
    if JOURNAL_DIR in path.parts:
        return "journal"
    return path.name if path.name in (RESULTS_FILE, TIMINGS_FILE) else "other"


@contextmanager
def swapped(module: ModuleType, name: str, value: Any) -> Iterator[Any]:
    """`module.name` replaced by `value` in this process for the block; yields the original."""
    original = getattr(module, name)
    setattr(module, name, value)
    try:
        yield original
    finally:
        setattr(module, name, original)


_first_write_of_run: list[tuple[int, int]] = []
"""Set as each run starts; cleared by that run's first results.json write."""


@contextmanager
def counted(sizes: Counter[str], writes: Counter[str]) -> Iterator[None]:
    real = results_module.__dict__["atomic_write_text"]

    def atomic_write_text(path: Path, text: str) -> None:
        kind = _kind(path)
        sizes[kind] += len(text.encode("utf-8"))
        writes[kind] += 1
        if kind == RESULTS_FILE and _first_write_of_run:  # the write run.py makes as each run starts
            _first_write_of_run.clear()
            sizes["results-at-start"] += len(text.encode("utf-8"))
            writes["results-at-start"] += 1
        real(path, text)

    with swapped(results_module, "atomic_write_text", atomic_write_text):
        yield


@contextmanager
def former_schedule() -> Iterator[None]:
    """execute() as it was: results.json and timings.json rewritten after every 25th journaled item."""
    real_execute, real_journal = run_module.__dict__["execute"], schedule_module.__dict__["journal_item"]

    def execute(
        work: Any,
        run: Any,
        results: Any,
        timings: Any,
        pending: list[str],
        *,
        out: Path,
        total: int,
        write: Callable[[Path, Any], None],
        **rest: Any,
    ) -> None:
        finished = [total - len(pending)]

        def journal_item(where: Path, config: str, item: Any, wall_ms: float | None = None) -> None:
            real_journal(where, config, item, wall_ms)  # called under execute's lock, as the former code was
            finished[0] += 1
            if finished[0] % FORMER_RESULTS_EVERY == 0:
                write(where, results)
                write_timings(where, timings)

        with swapped(schedule_module, "journal_item", journal_item):
            real_execute(work, run, results, timings, pending, out=out, total=total, write=write, **rest)

    with swapped(run_module, "execute", execute):
        yield


def run_once(out: Path, work: Path, configs: list[str], limit: int | None) -> tuple[Counter[str], Counter[str], float]:
    sizes: Counter[str] = Counter()
    writes: Counter[str] = Counter()
    started = time.perf_counter()
    with counted(sizes, writes):
        for config in configs:  # in turn into one --out, as `bench smoke` runs them
            _first_write_of_run[:] = [(writes[RESULTS_FILE], sizes[RESULTS_FILE])]
            run_config(
                RunOptions(
                    config_path=gate_config_path(config, project_root=ROOT),
                    out=out,
                    root=ROOT,
                    home=work,
                    limit=limit,
                    command=f"ratchet bench run --config {config}",
                )
            )
    return sizes, writes, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=40, help="0: every item, as `bench smoke` runs")
    parser.add_argument(
        "--configs", default="cascade", help=f"comma-separated, in order; a smoke: {','.join(SMOKE_ORDER)}"
    )
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench")
    args = parser.parse_args()
    configs, limit = args.configs.split(","), args.limit or None
    os.environ["RATCHET_UPSTREAM"] = "sim"
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        shutil.copytree(args.work, work, symlinks=True)  # the store and cache of the copy, not the shared one
        rows = {}
        for name in ("before", "after"):
            with former_schedule() if name == "before" else _nothing():
                rows[name] = run_once(Path(tmp) / f"out-{name}", work, configs, limit)
        same = (Path(tmp) / "out-before" / RESULTS_FILE).read_bytes() == (
            Path(tmp) / "out-after" / RESULTS_FILE
        ).read_bytes()
    print(
        f"bench run --config {' then '.join(configs)}"
        + (f" --limit {limit}" if limit else "")
        + f" on the simulator, each variant into a fresh --out (results.json identical: {same})"
    )
    print(f"{'':<8} {'results.json':>22} {'timings.json':>20} {'journal':>20} {'wall':>7}")
    for name, (sizes, writes, wall) in rows.items():
        print(
            f"{name:<8} {sizes[RESULTS_FILE]:>13,} B ({writes[RESULTS_FILE]}x) {sizes[TIMINGS_FILE]:>11,} B ({writes[TIMINGS_FILE]}x)"
            f" {sizes['journal']:>11,} B ({writes['journal']}x) {wall:6.1f}s"
        )
    before, after = rows["before"][0][RESULTS_FILE], rows["after"][0][RESULTS_FILE]
    print(f"results.json bytes after / before: {after / before:.2f}")
    at_start, starts = rows["after"][0]["results-at-start"], rows["after"][1]["results-at-start"]
    print(f"of those after, written as each run starts (ratchet/bench/run/run.py): {at_start:,} B ({starts}x)")
    print("wall: for orientation only; `before` runs first and pays the cold file caches")


@contextmanager
def _nothing() -> Iterator[None]:
    yield


if __name__ == "__main__":
    main()
