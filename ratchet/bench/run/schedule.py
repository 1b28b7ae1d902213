"""The scheduling loop of `ratchet bench run`: score items on the run's pool, journal each, keep what finished.

Split out of run.py. Items (edits) go to the run's one WorkPool (ratchet.core.pool), the same pool
each edit hands its pairs to, so the last edits of a run spread their pairs over the workers
the finished edits left idle. At most `pool.size` items are in flight at once; an item
submitted later queues behind the pairs of the items already running.

The journal is the run's durable record: the run's header as it starts, then every finished item
with its wall time, each a small file of its own. results.json (which holds every configuration
and grows to megabytes) is written once, at the end; a killed run resumes from the journal
(ratchet.bench.run.run merges it first), and `ratchet bench report` merges it on demand.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Protocol

from ratchet.bench.data.journal import clear_journal, journal_item, journal_run, merge_journal
from ratchet.bench.data.results import (
    BenchConfigRun,
    BenchResults,
    NoiseGolden,
    ScoredEdit,
    Timings,
    write_results,
    write_timings,
)

Scored = tuple[ScoredEdit | NoiseGolden, float]


class ItemPool(Protocol):
    """Where execute sends items: the run's WorkPool, or Ray actors (ratchet.bench.run.ray_exec.RayItems)."""

    @property
    def size(self) -> int: ...

    def submit(self, fn: Callable[[str], Scored], item: str) -> Future[Scored]: ...


def execute(
    work: Callable[[str], Scored],
    run: BenchConfigRun,
    results: BenchResults,
    timings: Timings,
    pending: list[str],
    *,
    out: Path,
    pool: ItemPool,
    on_progress: Callable[[int, int, str], None] | None,
    total: int,
    write: Callable[[Path, BenchResults], None] = write_results,
) -> None:
    """Score `pending` with `work` into `run`, writing results and timings under `out`; re-raise the first failure.

    `write` saves the results: results.json, or a shard's shard.json (ratchet.bench.run.sharded).
    """
    lock = threading.Lock()
    finished = total - len(pending)
    journal_run(out, results, run)
    # Wall times of the items a killed run journaled (run_config merged the items, not their timings).
    merge_journal(out, results, timings)

    def record(item_id: str, item: ScoredEdit | NoiseGolden, wall_ms: float) -> None:
        nonlocal finished
        with lock:
            if isinstance(item, NoiseGolden):
                run.noise[item_id] = item
            else:
                run.edits[item_id] = item
            timings.wall_ms.setdefault(run.config, {})[item_id] = wall_ms
            journal_item(out, run.config, item, wall_ms)
            finished += 1
            if on_progress is not None:
                on_progress(finished, total, item_id)

    if on_progress is not None:
        on_progress(finished, total, "")
    queue = list(pending)
    # The pool belongs to the caller (run_config), which closes it.
    running: dict[Future[Scored], str] = {}
    failure: BaseException | None = None
    while queue or running:
        while queue and failure is None and len(running) < pool.size:
            item_id = queue.pop(0)
            running[pool.submit(work, item_id)] = item_id
        if not running:
            break
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in sorted(done, key=lambda f: running[f]):
            item_id = running.pop(future)
            try:
                item, wall_ms = future.result()
            except BaseException as exc:  # stop scheduling; what finished is kept
                failure = failure or exc
                continue
            record(item_id, item, wall_ms)
    with lock:
        write(out, results)
        write_timings(out, timings)
        clear_journal(out, run.config)
    if failure is not None:
        raise failure
