"""The shipped goldens' mutation score, measured for the bench report (`ratchet bench smoke`, `ratchet bench mutate`).

`ratchet mutate`'s own entry point (ratchet.mutate.run.mutate_project) runs over a scratch repository made
like the build's (ratchet.bench.build.scratch_repo): the shipped skills, tasks, world and goldens committed
on main. It is a repository of its own, not the build's, whose working tree holds the goldens the build
re-recorded: so `--no-build` and `bench mutate` alone measure exactly what is shipped. The checks use the
bench work area's home, so they share its response cache (a rerun is served from it). Seeded, and on the
simulator only, like the smoke.

At most MUTANTS_PER_SKILL mutants per skill by default (taken in turn from each class R1-R6, so two of each):
the whole set (about 24 per skill) more than doubles the smoke's time on a cold cache; the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ratchet.bench.build.scratch_repo import scratch_repo
from ratchet.bench.data.dataset import DEFAULT_WORK, BenchPaths
from ratchet.bench.data.digest import dataset_digest
from ratchet.bench.data.mutation import KilledChecked, MutationRun, MutationSkill
from ratchet.bench.data.results import RESULTS_FILE, SUMMARY_FILE, BenchResults, read_results, write_results
from ratchet.bench.data.summary import read_summary, write_summary
from ratchet.config.env import on_the_simulator
from ratchet.core.errors import InputError
from ratchet.mutate.models import MutationReport
from ratchet.mutate.run import MutateOptions, mutate_project

MUTANTS_PER_SKILL = 12
"""The smoke's per-skill limit: two mutants of each class, enough to rank skills, cheap enough to rerun."""
CONFIG = "cascade"
REPO_DIR = "mutate-repo"


def mutate_command(limit: int | None, seed: int) -> str:
    """The command line that measures it again (kept in the results, shown in the report)."""
    return "ratchet bench mutate" + (f" --limit {limit}" if limit is not None else " --all") + f" --seed {seed}"


def measure_mutation(
    root: Path,
    *,
    work: Path | None = None,
    limit: int | None = MUTANTS_PER_SKILL,
    seed: int = 0,
    concurrency: int = 2,
    echo: Callable[[str], None] = lambda _line: None,
) -> MutationRun:
    """`ratchet mutate` over the shipped goldens of the project at `root`, on the simulator; the counts."""
    area = (work or root / DEFAULT_WORK).resolve()
    home = area / "home"
    with on_the_simulator():
        project = scratch_repo(BenchPaths.at(root), area / REPO_DIR, home, with_goldens=True)
        report = mutate_project(
            project.root,
            MutateOptions(seed=seed, limit=limit, config=CONFIG, concurrency=concurrency, home=home, echo=echo),
        )
    return mutation_run(report, command=mutate_command(limit, seed), limit=limit)


def mutation_run(report: MutationReport, *, command: str, limit: int | None) -> MutationRun:
    """What the bench keeps of a mutation report: the counts per skill and class, no sha, no diff."""
    skills = [
        MutationSkill(
            skill=score.skill,
            killed=score.killed,
            checked=score.killed + score.survived,
            errors=score.errors,
            unchecked=score.unchecked,
            by_class={
                cls.mutant_class: KilledChecked(killed=cls.killed, checked=cls.killed + cls.survived)
                for cls in score.by_class
            },
        )
        for score in report.skills
    ]
    return MutationRun(
        command=command,
        config=CONFIG,
        seed=report.seed,
        limit=limit,
        simulated=report.simulated,
        dropped_equivalent=report.dropped_equivalent,
        skills=skills,
    )


def open_results(out: Path, *, root: Path, results: BenchResults | None = None) -> tuple[BenchResults, bool]:
    """The results in `out` the score is added to (its results.json, else its summary.json; True for the former).
    `results`: what the caller holds of out's results.json already (the smoke's, as its last run wrote them),
    checked the same way; None: read from `out`.

    Refused when `out` holds no results, or results of another dataset than the one at `root` (the goldens
    measured would not be the ones its recall was measured with)."""
    full = results is not None or (out / RESULTS_FILE).exists()
    if not full and not (out / SUMMARY_FILE).exists():
        raise InputError(f"no results in {out}: run `ratchet bench smoke` (or `ratchet bench run`) first")
    if results is None:
        results = read_results(out) if full else read_summary(out)
    digest = dataset_digest(BenchPaths.at(root))
    if results.dataset_digest and results.dataset_digest != digest:
        raise InputError(
            f"{out} holds results for dataset {results.dataset_digest[:12]}, not {digest[:12]} (the data at "
            f"{root}): re-run `ratchet bench smoke`"
        )
    return results, full


def store_mutation(
    out: Path, mutation: MutationRun, *, root: Path, results: BenchResults | None = None
) -> BenchResults:
    """Keep `mutation` in the results directory `out` (see open_results): in results.json, else summary.json.
    `results`: out's results.json as the caller holds it (open_results); the results written are returned."""
    results, full = open_results(out, root=root, results=results)
    results.mutation = mutation
    if full:
        write_results(out, results)
    else:
        write_summary(out, results)
    return results
