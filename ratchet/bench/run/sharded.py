"""Sharded bench runs: `bench run --shard K/N` scores part of a run, `bench merge` puts the parts back together.

Why edits (or, for E6, goldens) and not pairs: a bench item is a ScoredEdit, whose verdict is decided
over all of its pairs, whose usage sums them, and whose replays file (replays/<config>/<edit>.json)
the re-judging configurations read whole. Splitting an edit's pairs over machines would need every
shard to ship half-evaluated edits and re-decide them at merge time; splitting edits does not, and a
run has hundreds of edits of a few pairs each, so the shards balance anyway (the pairs inside an
edit already spread over one machine's pool).

Partition: item i (0-based) of all the dataset's candidates (every labeled edit, or every golden for
E6), sorted by id, belongs to shard (i mod N) + 1. The whole dataset, not the sample: a re-judging
configuration run with a smaller --limit (a subset of cascade's sample, see sampling.py) then finds
each edit's cascade replays in the same shard. A full run's shards differ in size by at most one.

Layout: every shard of a run is given the same --out (the run's results directory, so the command
and config_path recorded in results.json are the unsharded run's) and writes only under
<out>/shards/<K>-of-<N>/: its shard.json (BenchShard: the shard's results, the whole run's sample
and the items this shard owns), replays/, timings.json. A shard is never the run's results:
shard.json says PARTIAL first, and read_results refuses it (ratchet.bench.data.results.refuse_shard).
`merge_bench_shards` checks the N shards are one run and complete, and writes <out>/results.json,
replays/, timings.json and the report, byte for byte what one machine writes (timings excepted:
they are wall clock).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ratchet.bench.data.models import BENCH_SCHEMA_VERSION
from ratchet.bench.data.results import (
    REPLAYS_DIR,
    SHARD_FILE,
    SHARD_KIND,
    BenchConfigRun,
    BenchResults,
    Timings,
    read_results,
    read_timings,
    write_results,
    write_timings,
)
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, load_json_file
from ratchet.gate.shard import Shard

SHARDS_DIR = "shards"

__all__ = ["SHARDS_DIR", "SHARD_FILE", "BenchShard", "ShardConfig", "merge_bench_shards", "owned_ids", "shard_dir"]


def shard_dir(out: Path, shard: Shard) -> Path:
    """Where shard K of N of the run whose results directory is `out` writes."""
    return out / SHARDS_DIR / f"{shard.index}-of-{shard.count}"


def owned_ids(candidates: Sequence[str], sample: Sequence[str], shard: Shard) -> list[str]:
    """The ids of `sample` that `shard` scores: by position among all `candidates`, sorted (module docstring)."""
    position = {item_id: i for i, item_id in enumerate(sorted(candidates))}
    return sorted(i for i in sample if shard.owns(position[i]))


class ShardConfig(BaseModel):
    """One configuration's part in a shard: the whole run's sample, and the ids this shard scores."""

    sample: list[str] = Field(description="Every id the unsharded run scores, sorted.")
    owned: list[str] = Field(description="The ids of the sample this shard scores, sorted.")


class BenchShard(BaseModel):
    """A shard's shard.json: its results (the owned items only) and what merge checks them against."""

    schema_version: int = BENCH_SCHEMA_VERSION
    kind: Literal["ratchet-bench-shard"] = SHARD_KIND
    note: str = Field(default="", description="PARTIAL: ... (what a reader of this file is told first).")
    shard: int = Field(ge=1, description="K of --shard K/N.")
    shards: int = Field(ge=1, description="N of --shard K/N.")
    configs: dict[str, ShardConfig] = Field(default_factory=dict)
    results: BenchResults = Field(default_factory=BenchResults)

    def partial_note(self) -> str:
        owned = sum(len(c.owned) for c in self.configs.values())
        sample = sum(len(c.sample) for c in self.configs.values())
        return (
            f"PARTIAL: shard {self.shard}/{self.shards} of a bench run, {owned} of {sample} item(s), not the "
            f"run's results: ratchet bench merge all {self.shards} shard directories into the run's --out"
        )


def write_shard(folder: Path, shard: BenchShard, results: BenchResults) -> None:
    """shard.json with `results` (the running shard's, as the scheduler saves them) and the partial note."""
    done = shard.model_copy(update={"results": results})
    done.note = done.partial_note()
    atomic_write_text(folder / SHARD_FILE, canonical_dumps(done.model_dump(mode="json")))


def open_shard(
    out: Path,
    shard: Shard,
    config: str,
    candidates: Sequence[str],
    sample: Sequence[str],
) -> tuple[Path, BenchResults, list[str], Callable[[Path, BenchResults], None]]:
    """A shard's folder, the results it holds already, the ids of `sample` it owns, and how it saves results.

    The sample and owned ids accumulate over resumed runs, as an unsharded results.json accumulates
    edits, so the merged shards hold what one machine's results.json would.
    """
    folder = shard_dir(out, shard)
    found = read_shard(folder, shard)
    owned = owned_ids(candidates, sample, shard)
    before = found.configs.get(config, ShardConfig(sample=[], owned=[]))
    found.configs[config] = ShardConfig(sample=sorted({*before.sample, *sample}), owned=sorted({*before.owned, *owned}))

    def write(target: Path, results: BenchResults) -> None:
        write_shard(target, found, results)

    return folder, found.results, owned, write


def read_shard(folder: Path, shard: Shard) -> BenchShard:
    """The shard file in `folder` to resume, or a new one; a file of another shard or version is refused."""
    if not (folder / SHARD_FILE).exists():
        return BenchShard(shard=shard.index, shards=shard.count)
    found = load_shard(folder)
    if (found.shard, found.shards) != (shard.index, shard.count):
        raise InputError(f"holds shard {found.shard}/{found.shards}, not {shard.label}", path=folder / SHARD_FILE)
    return found


def load_shard(folder: Path) -> BenchShard:
    """A shard directory's shard.json, or one InputError naming it."""
    path = folder / SHARD_FILE
    if not path.is_file():
        raise InputError(
            "not a bench shard directory (no shard.json): give the folders ratchet bench run --shard "
            "K/N wrote (<out>/shards/K-of-N)",
            path=folder,
        )
    raw = load_json_file(path, error=InputError)
    if not isinstance(raw, dict) or raw.get("kind") != SHARD_KIND:
        raise InputError("not a bench shard file of ratchet bench run --shard K/N", path=path)
    if raw.get("schema_version") != BENCH_SCHEMA_VERSION:
        raise InputError(
            f"shard schema_version {raw.get('schema_version')!r}, this Ratchet reads "
            f"{BENCH_SCHEMA_VERSION}: re-run the shard with this version",
            path=path,
        )
    try:
        return BenchShard.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(
            f"not a valid bench shard file: {'.'.join(str(p) for p in first['loc'])}: {first['msg']}", path=path
        ) from None


# -- merge -----------------------------------------------------------------------------------------


@dataclass
class MergeSummary:
    out: Path
    shards: int
    configs: list[str]
    report: Path


def _header(run: BenchConfigRun) -> BenchConfigRun:
    return run.model_copy(update={"edits": {}, "noise": {}})


def _foreign(a: BenchShard, b: BenchShard) -> str | None:
    """How shard b is of another run than shard a (None: the same run)."""
    if a.shards != b.shards:
        return f"{a.shards} shards vs {b.shards}"
    ra, rb = a.results, b.results
    if ra.dataset_digest != rb.dataset_digest:
        return f"dataset {ra.dataset_digest[:12]} vs {rb.dataset_digest[:12]}"
    if ra.dataset != rb.dataset:
        return "a different dataset header (git sha, labels or prices)"
    if sorted(a.configs) != sorted(b.configs) or sorted(ra.runs) != sorted(rb.runs):
        return f"configurations {', '.join(sorted(a.configs))} vs {', '.join(sorted(b.configs))}"
    for name in sorted(a.configs):
        if a.configs[name].sample != b.configs[name].sample:
            return f"a different sample for {name}"
        if _header(ra.runs[name]) != _header(rb.runs[name]):
            return f"a different {name} run (command, seed, limit, types or models)"
    return None


def _check(shards: list[tuple[Path, BenchShard]]) -> None:
    """One run, every shard once, each complete; else one InputError (exit 2)."""
    first_path, first = shards[0]
    seen: dict[int, Path] = {}
    for path, shard in shards:
        difference = _foreign(first, shard)
        if difference is not None:
            raise InputError(
                f"shard {shard.shard}/{shard.shards} is of another run than {first_path} ({difference}): "
                "merge the shards of one run",
                path=path,
            )
        if shard.shard > shard.shards:
            raise InputError(f"shard {shard.shard} of {shard.shards} does not exist", path=path)
        if shard.shard in seen:
            raise InputError(
                f"shard {shard.shard}/{shard.shards} given twice (also {seen[shard.shard]}): give each "
                "shard directory once",
                path=path,
            )
        seen[shard.shard] = path
        for name, part in shard.configs.items():
            run = shard.results.runs[name]
            if sorted(run.noise if run.mode == "noise" else run.edits) != part.owned:
                raise InputError(
                    f"shard {shard.shard}/{shard.shards} has not finished {name}: re-run it (it resumes), then merge",
                    path=path,
                )
    missing = [k for k in range(1, first.shards + 1) if k not in seen]
    if missing:
        raise InputError(
            f"shard(s) {', '.join(f'{k}/{first.shards}' for k in missing)} missing: merge needs every shard of the run"
        )
    for name, part in first.configs.items():
        owned = sorted(i for _, s in shards for i in s.configs[name].owned)
        if owned != part.sample:
            raise InputError(
                f"the shards' {name} items are not the run's sample: re-run the shards with one Ratchet version",
                path=first_path,
            )


def merged_results(shards: Sequence[BenchShard]) -> BenchResults:
    """The run's results: the shards' shared header, and every shard's items under each configuration."""
    first = shards[0].results
    runs: dict[str, BenchConfigRun] = {}
    for name in sorted(first.runs):
        run = _header(first.runs[name])
        for shard in shards:
            run.edits.update(shard.results.runs[name].edits)
            run.noise.update(shard.results.runs[name].noise)
        runs[name] = run.model_copy(
            update={"edits": dict(sorted(run.edits.items())), "noise": dict(sorted(run.noise.items()))}
        )
    return first.model_copy(update={"runs": runs})


def merged_timings(folders: Sequence[Path]) -> Timings:
    """The shards' wall times and run ids together (wall clock: never byte-compared); estimates summed."""
    timings = Timings()
    for folder in folders:
        part = read_timings(folder)
        for config, walls in part.wall_ms.items():
            timings.wall_ms.setdefault(config, {}).update(walls)
        for config, ids in part.run_ids.items():
            timings.run_ids.setdefault(config, []).extend(ids)
        for config, usd in part.estimates_usd.items():
            timings.estimates_usd[config] = round(timings.estimates_usd.get(config, 0.0) + usd, 6)
    timings.wall_ms = {c: dict(sorted(w.items())) for c, w in sorted(timings.wall_ms.items())}
    return timings


def merge_bench_shards(folders: Sequence[Path], out: Path) -> MergeSummary:
    """Write into `out` the results directory the unsharded run writes, from all N shard directories.

    Refused in one line (InputError, exit 2), before anything is written: a folder that is not a
    shard, shards of different runs, a shard given twice, missing or unfinished, and an `out` whose
    results.json holds configurations the shards do not (merging would drop them).
    """
    if not folders:
        raise InputError("ratchet bench merge needs the shard directories of one run, e.g. <out>/shards/*")
    loaded = [(folder, load_shard(folder)) for folder in folders]
    _check(loaded)
    shards = sorted((s for _, s in loaded), key=lambda s: s.shard)
    results = merged_results(shards)
    existing = read_results(out)
    dropped = sorted(set(existing.runs) - set(results.runs))
    if dropped:
        raise InputError(
            f"{out / 'results.json'} holds {', '.join(dropped)}, which the shards do not: merge into a "
            "new --out or shard those configurations too"
        )
    ordered = [folder for folder, _ in sorted(loaded, key=lambda pair: pair[1].shard)]
    for folder in ordered:
        replays = folder / REPLAYS_DIR
        if replays.is_dir():
            shutil.copytree(replays, out / REPLAYS_DIR, dirs_exist_ok=True)
    write_results(out, results)
    write_timings(out, merged_timings(ordered))
    from ratchet.bench.report.report import write_report

    report = write_report(out)
    return MergeSummary(out=out, shards=shards[0].shards, configs=sorted(results.runs), report=report)
