"""The results directory on disk: results.json (byte-stable), timings.json (wall clock), replays/.

    <out>/results.json                      BenchResults: per configuration, per edit, the scored verdict
    <out>/timings.json                      Timings: measured wall time and store run ids (not byte-compared)
    <out>/replays/<config>/<edit_id>.json   EditReplays: what re-judging configurations read
    <out>/summary.json                      the same BenchResults cut down to what the report reads (summary.py)
    <out>/report.md, <out>/cost_vs_recall.svg
    <out>/shards/<K>-of-<N>/shard.json      BenchShard: one shard's part (`bench run --shard`), never the run's

Everything in results.json is a function of the inputs and the seed: wall-clock
latency, response-cache hits and the money the cache saved live in timings.json and the
ledger instead (docs/adr/0009-bench-runs.md); costs are at catalog prices (costs.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ratchet.bench.data.models import BENCH_SCHEMA_VERSION, EditType
from ratchet.bench.data.mutation import MutationRun
from ratchet.bench.data.triggers import EditTriggers
from ratchet.core.chat import USD
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, load_json_file
from ratchet.diff.measure import Outcome as DiffOutcome
from ratchet.gate.models import Decision, EditReplays, Outcome, PairOutcome, Verdict

RESULTS_FILE = "results.json"
SUMMARY_FILE = "summary.json"
TIMINGS_FILE = "timings.json"
REPLAYS_DIR = "replays"
REPORT_FILE = "report.md"
FIGURE_FILE = "cost_vs_recall.svg"
SHARD_FILE = "shard.json"
SHARD_KIND: Literal["ratchet-bench-shard"] = "ratchet-bench-shard"


class TierUsage(BaseModel):
    """Tokens and catalog-priced USD of one tier's calls for one verdict (cache hits priced too)."""

    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = Field(default=0, description="Prompt tokens the provider served from its prompt cache.")
    usd: USD = 0.0


class ScoredEdit(BaseModel):
    """One edit under one configuration, with what scoring and the report need."""

    edit_id: str
    type: EditType
    verdict: Verdict
    expected_decision: Decision = Field(description="Effective label (a reviewer's disagreement wins).")
    replays_dir: str | None = Field(default=None, description="Where this edit's replays are stored, for re-judging.")
    skill: str
    affected_goldens: list[str] = Field(default_factory=list, description="From the effective label.")
    expected_pairs: dict[str, Outcome] = Field(default_factory=dict, description="From the effective label.")
    usage: dict[str, TierUsage] = Field(default_factory=dict, description="By tier: agent, nano, super, ultra.")
    diff: str = Field(default="", description="Unified diff of SKILL.md, for worked examples.")
    triggers: EditTriggers | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The check's trigger step on this edit (ratchet.bench.data.triggers), kept beside the verdict, "
        "which stays the decision without it; null when the edit changes no catalog entry, or in results "
        "written before the bench ran trigger queries.",
    )


class NoiseGolden(BaseModel):
    """E6: one golden replayed with the unchanged skill several times, each replay gated."""

    task_id: str
    skill: str | None
    outcomes: list[PairOutcome]
    decisions: list[Decision] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="Per outcome: what a check deciding on that pair alone would answer (every BLOCK is false).",
    )
    usage: dict[str, TierUsage] = Field(default_factory=dict)


class BenchConfigRun(BaseModel):
    """All edits (or, for E6, goldens) run under one configuration in one results directory."""

    config: str
    description: str = ""
    config_path: str = Field(
        default="", description="The config file, relative to the results directory (report links)."
    )
    command: str = Field(description="The exact command line that produced it.")
    simulated: bool
    models: dict[str, str] = Field(default_factory=dict)
    seed: int = 0
    limit: int | None = None
    types: list[str] = Field(default_factory=list)
    mode: str = Field(default="record", description="record | rejudge | noise")
    replays_from: str | None = Field(default=None, description="The configuration whose replays were re-judged.")
    sim_noise: float = Field(
        default=0.0,
        exclude_if=lambda value: value == 0,
        description="The simulator's noise chance in this run (ratchet.bench.run.noisy).",
    )
    bless_repeats: int = Field(
        default=0,
        exclude_if=lambda value: value == 0,
        description="Repeats per golden that measured the noise records it gated with.",
    )
    flips: dict[str, list[int]] = Field(
        default_factory=dict,
        exclude_if=lambda value: not value,
        description="task id -> [repeats that differed from the golden, repeats] from its noise record.",
    )
    edits: dict[str, ScoredEdit] = Field(default_factory=dict)
    noise: dict[str, NoiseGolden] = Field(default_factory=dict)


class DatasetInfo(BaseModel):
    """What the report header says about the data."""

    harness: str = ""
    git_sha: str = "unknown"
    date: str = Field(
        default="", description="From the data (a dated results dir, else the frozen clock), never the clock."
    )
    labels_file: str = "labels/labels.json"
    label_counts: dict[str, int] = Field(default_factory=dict)
    reviews_required: int = 0
    reviews_done: int = 0
    prices: dict[str, list[float]] = Field(
        default_factory=dict, description="tier -> [input, output] USD per token (catalog)."
    )


class DiffClassifierRun(BaseModel):
    """The behavioural diff's classifier on labelled edits (ratchet.bench.report.diffs; scored by ratchet.diff.measure).

    A deterministic reader, no model: the same on the simulator and live. Every bench run writes it anew.
    """

    corpus_dir: str = Field(
        default="",
        description="The free-form corpus read, relative to the project root; "
        "empty when it was not there (the corpus is not measured).",
    )
    analysers: list[str] = Field(
        default_factory=list,
        description="The script analysers installed (bandit, "
        "shellcheck): a missing one's findings are analyser_unavailable.",
    )
    corpus: list[DiffOutcome] = Field(default_factory=list, description="Per corpus edit: expected and found kinds.")
    bench: list[DiffOutcome] = Field(
        default_factory=list, description="Per labeled bench edit (group: its type): the kinds found."
    )


class BenchResults(BaseModel):
    schema_version: int = BENCH_SCHEMA_VERSION
    dataset_digest: str = ""
    dataset: DatasetInfo = Field(default_factory=DatasetInfo)
    diff_classifier: DiffClassifierRun | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The behavioural diff's classifier measured on the dataset's labeled edits and the corpus.",
    )
    mutation: MutationRun | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="The shipped goldens' mutation score per skill and class (ratchet.bench.run.mutation); "
        "null in results written before the bench measured it.",
    )
    runs: dict[str, BenchConfigRun] = Field(default_factory=dict)

    @property
    def simulated(self) -> bool:
        return any(run.simulated for run in self.runs.values()) or not self.runs


class Timings(BaseModel):
    """Measured wall time per edit (ms) and the store's run ids, by configuration. Not byte-stable."""

    schema_version: int = BENCH_SCHEMA_VERSION
    wall_ms: dict[str, dict[str, float]] = Field(default_factory=dict)
    run_ids: dict[str, list[str]] = Field(default_factory=dict)
    estimates_usd: dict[str, float] = Field(
        default_factory=dict, description="The last estimate per configuration (it uses the ledger's observed means)."
    )


def refuse_shard(path: Path, raw: object) -> None:
    """A shard's file (ratchet.bench.run.sharded) read where a whole run's results are expected: one InputError.

    Why here: every reader of a results directory (run, report, compare) comes through read_results,
    so a shard can never be scored, reported or resumed as if it were the whole run.
    """
    if isinstance(raw, dict) and raw.get("kind") == SHARD_KIND:
        note = raw.get("note") or "PARTIAL: a shard of a bench run; run ratchet bench merge on all its shards"
        raise InputError(str(note), path=path)


def read_results(out: Path) -> BenchResults:
    """results.json of a results directory; an empty one when there is none yet. A shard's folder is refused."""
    if (out / SHARD_FILE).exists():
        refuse_shard(out / SHARD_FILE, load_json_file(out / SHARD_FILE, error=InputError))
    path = out / RESULTS_FILE
    if not path.exists():
        return BenchResults()
    raw = load_json_file(path, error=InputError)
    refuse_shard(path, raw)
    try:
        if raw.get("schema_version") != BENCH_SCHEMA_VERSION:
            raise InputError(f"unsupported schema_version {raw.get('schema_version')!r}", path=path)
        return BenchResults.model_validate(raw)
    except (ValidationError, AttributeError) as exc:
        raise InputError(f"not a results file ({type(exc).__name__}); move it away or fix it", path=path) from None


def write_results(out: Path, results: BenchResults) -> None:
    """results.json in compact canonical JSON: it holds every replay of every configuration (23 MB on the
    smoke) and is rewritten after each one, and only json's C encoder writes without indentation (the
    indented form took 10 s of a smoke run's CPU). It is not kept in git: summary.json is the readable one."""
    atomic_write_text(out / RESULTS_FILE, canonical_dumps(results.model_dump(mode="json"), indent=None) + "\n")


def read_timings(out: Path) -> Timings:
    path = out / TIMINGS_FILE
    if not path.exists():
        return Timings()
    try:
        return Timings.model_validate(load_json_file(path, error=InputError))
    except (InputError, ValidationError):
        return Timings()  # a sidecar: losing it loses latency figures, never results


def write_timings(out: Path, timings: Timings) -> None:
    atomic_write_text(out / TIMINGS_FILE, canonical_dumps(timings.model_dump(mode="json")))


def replays_path(out: Path, config: str, edit_id: str) -> Path:
    return out / REPLAYS_DIR / config / f"{edit_id}.json"


def read_replays(path: Path) -> EditReplays:
    raw = load_json_file(path, error=InputError)
    try:
        return EditReplays.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"cannot read stored replays ({type(exc).__name__})", path=path) from None


def write_replays(path: Path, replays: EditReplays) -> None:
    atomic_write_text(path, canonical_dumps(replays.model_dump(mode="json")))


__all__ = [
    "FIGURE_FILE",
    "REPORT_FILE",
    "RESULTS_FILE",
    "SUMMARY_FILE",
    "BenchConfigRun",
    "BenchResults",
    "DatasetInfo",
    "EditType",
    "NoiseGolden",
    "ScoredEdit",
    "TierUsage",
    "Timings",
]
