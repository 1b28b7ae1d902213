"""The results directory on disk: results.json (byte-stable), timings.json (wall clock), replays/.

    <out>/results.json                      BenchResults: per configuration, per edit, the scored verdict
    <out>/timings.json                      Timings: measured wall time and store run ids (not byte-compared)
    <out>/replays/<config>/<edit_id>.json   EditReplays: what re-judging configurations read
    <out>/report.md, <out>/cost_vs_recall.svg
    <out>/shards/<K>-of-<N>/shard.json      BenchShard: one shard's part (`bench run --shard`), never the run's

Everything in results.json is a function of the inputs and the seed: wall-clock
latency, response-cache hits and the money the cache saved live in timings.json and the
ledger instead (docs/adr/0009-bench-runs.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ratchet.bench.models import BENCH_SCHEMA_VERSION, EditType
from ratchet.config import RatchetConfig
from ratchet.diff.measure import Outcome as DiffOutcome
from ratchet.errors import InputError
from ratchet.gate.models import Decision, EditReplays, Opinion, Outcome, PairOutcome, Verdict
from ratchet.jsonio import (
    atomic_write_text,
    canonical_dumps,
    load_json_file,
    load_json_text,
    read_utf8,
)
from ratchet.llm.pricing import catalog_usd
from ratchet.llm.types import USD, Usage
from ratchet.trace import Trace

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
        description="The simulator's noise chance in this run (ratchet.bench.noisy).",
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
    """The behavioural diff's classifier on labelled edits (ratchet.bench.diffs; scored by ratchet.diff.measure).

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
    """A shard's file (ratchet.bench.shard) read where a whole run's results are expected: one InputError.

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
    atomic_write_text(out / RESULTS_FILE, canonical_dumps(results.model_dump(mode="json")))


# The summary: what report.md is rendered from, small enough to commit ----------------------------
# results.json holds every finding, rationale and diff (19 MB for a smoke, and another 19 MB of
# history per regenerated smoke). summary.json is the same BenchResults cut down to what the report
# and its metrics read (docs/bench-summary.md): `ratchet bench report` renders the same report.md
# from either, and the full file is produced on demand and not committed.


def worked_example_ids(results: BenchResults) -> tuple[str | None, list[str]]:
    """The configuration the report's worked examples come from, and its first edit of each type."""
    run = results.runs.get("cascade") or next((r for r in results.runs.values() if r.edits), None)
    if run is None:
        return None, []
    first: dict[str, str] = {}
    for edit_id in sorted(run.edits):
        first.setdefault(run.edits[edit_id].type, edit_id)
    return run.config, list(first.values())


def _compact_opinion(opinion: Opinion) -> Opinion:
    # confidence stays: judge rates and calibration (ratchet.bench.labeled) read it from the summary.
    return Opinion(
        tier=opinion.tier,
        prompt_version="",
        verdict=opinion.verdict,
        confidence=opinion.confidence,
        tokens_in=opinion.tokens_in,
        tokens_out=opinion.tokens_out,
        run=opinion.run,
    )


def _compact_pair(pair: PairOutcome, *, evidence: bool) -> PairOutcome:
    """A pair as metrics read it: outcome and opinions; a worked example's also keeps its one-line evidence."""
    return PairOutcome(
        task_id=pair.task_id,
        golden_skill=None,
        selected_because=pair.selected_because,
        outcome=pair.outcome,
        decided_by=pair.decided_by if evidence else "",
        reason=pair.reason if evidence else "",
        # The swapped-order asks are left out: every reader skips them, and their tokens are in the usage.
        opinions=[_compact_opinion(o) for o in pair.opinions if not o.swapped],
        repeats=pair.repeats,
    )


def _compact_edit(edit: ScoredEdit, *, example: bool) -> ScoredEdit:
    verdict = edit.verdict
    kept = Verdict(
        base="",
        head="",
        skills_changed=[],
        decision=verdict.decision,
        summary=verdict.summary if example else "",
        simulated=verdict.simulated,
        pairs=[_compact_pair(p, evidence=example) for p in verdict.pairs],
    )
    return ScoredEdit(
        edit_id=edit.edit_id,
        type=edit.type,
        verdict=kept,
        expected_decision=edit.expected_decision,
        skill=edit.skill,
        expected_pairs=edit.expected_pairs,
        usage=edit.usage,
        diff=edit.diff if example else "",
    )


def compact_results(results: BenchResults) -> BenchResults:
    """The summary: `results` with only what report.md reads (same report, a fraction of the bytes).

    Kept per edit: type, labels, decision, per-tier usage, and per pair its outcome and each
    opinion's tier, verdict and tokens; the worked examples (worked_example_ids) keep their diff,
    pair evidence and summary. Dropped: findings, rationales, drift evidence, hints, costs per pair
    (the usage carries the money), replay paths. A summary compacts to itself.
    """
    example_config, examples = worked_example_ids(results)
    runs = {}
    for name, run in results.runs.items():
        edits = {
            edit_id: _compact_edit(edit, example=name == example_config and edit_id in examples)
            for edit_id, edit in run.edits.items()
        }
        noise = {
            task_id: NoiseGolden(
                task_id=golden.task_id,
                skill=None,
                outcomes=[_compact_pair(o, evidence=False) for o in golden.outcomes],
                decisions=golden.decisions,
                usage=golden.usage,
            )
            for task_id, golden in run.noise.items()
        }
        runs[name] = run.model_copy(update={"edits": edits, "noise": noise})
    return results.model_copy(update={"runs": runs})


def write_summary(out: Path, results: BenchResults) -> None:
    """summary.json: one edit per line, so a regenerated smoke diffs edit by edit in review."""
    atomic_write_text(out / SUMMARY_FILE, summary_text(compact_results(results)))


def summary_text(summary: BenchResults) -> str:
    """The summary's bytes: the header object, then one line per run and one per edit or noise golden.

    Fields at their defaults are left out of the edit lines (read back, they are the defaults again). The
    diff classifier's measurement, when there is one, is a line of its own and then one line per outcome.
    """
    head = summary.model_dump(mode="json", exclude={"runs", "diff_classifier"})
    lines = [canonical_dumps({"kind": "summary", **head}, indent=None)]
    classifier = summary.diff_classifier
    if classifier is not None:
        lines.append(
            canonical_dumps(
                {"kind": "diff_classifier", **classifier.model_dump(mode="json", exclude={"corpus", "bench"})},
                indent=None,
            )
        )
        lines += [
            canonical_dumps({"kind": "diff_outcome", "set": name, "item": outcome.model_dump(mode="json")}, indent=None)
            for name in ("corpus", "bench")
            for outcome in getattr(classifier, name)
        ]
    for name in sorted(summary.runs):
        run = summary.runs[name]
        lines.append(
            canonical_dumps({"kind": "run", **run.model_dump(mode="json", exclude={"edits", "noise"})}, indent=None)
        )
        lines += [
            canonical_dumps(
                {"kind": "edit", "config": name, "item": run.edits[k].model_dump(mode="json", exclude_defaults=True)},
                indent=None,
            )
            for k in sorted(run.edits)
        ]
        lines += [
            canonical_dumps(
                {"kind": "noise", "config": name, "item": run.noise[k].model_dump(mode="json", exclude_defaults=True)},
                indent=None,
            )
            for k in sorted(run.noise)
        ]
    return "\n".join(lines) + "\n"


def read_summary(out: Path) -> BenchResults:
    """summary.json back into the BenchResults it was cut from (as compact_results left it)."""
    path = out / SUMMARY_FILE
    try:
        rows = [
            load_json_text(line, source=f"{path}:{n}", error=InputError)
            for n, line in enumerate(read_utf8(path, error=InputError).splitlines(), start=1)
        ]
        header = rows[0]
        if header.get("kind") != "summary" or header.get("schema_version") != BENCH_SCHEMA_VERSION:
            raise InputError(f"not a bench summary of schema_version {BENCH_SCHEMA_VERSION}", path=path, line=1)
        header.pop("kind")
        results = BenchResults.model_validate(header)
        for row in rows[1:]:
            kind = row.pop("kind")
            if kind == "diff_classifier":
                results.diff_classifier = DiffClassifierRun.model_validate(row)
            elif kind == "diff_outcome":
                if results.diff_classifier is None or row.get("set") not in ("corpus", "bench"):
                    raise InputError(
                        "a diff_outcome line needs a diff_classifier line before it and "
                        "a set (corpus or bench); regenerate it with ratchet bench report",
                        path=path,
                    )
                getattr(results.diff_classifier, row["set"]).append(DiffOutcome.model_validate(row["item"]))
            elif kind == "run":
                results.runs[row["config"]] = BenchConfigRun.model_validate(row)
            elif kind == "edit":
                edit = ScoredEdit.model_validate(row["item"])
                results.runs[row["config"]].edits[edit.edit_id] = edit
            else:
                golden = NoiseGolden.model_validate(row["item"])
                results.runs[row["config"]].noise[golden.task_id] = golden
    except (ValidationError, AttributeError, KeyError, IndexError, TypeError) as exc:
        raise InputError(
            f"not a bench summary ({type(exc).__name__}); regenerate it with ratchet bench report", path=path
        ) from None
    return results


def read_report_source(out: Path) -> BenchResults:
    """What the report renders from: results.json when the full file is there, else summary.json."""
    if not (out / RESULTS_FILE).exists() and (out / SUMMARY_FILE).exists():
        return read_summary(out)
    return read_results(out)


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


# Catalog pricing, independent of the response cache --------------------------------------
# A replay or judge answer served from the cache cost nothing, so what a run paid depends on
# what the cache held. results.json prices every call at catalog instead (ratchet.llm.pricing),
# and keeps no cache state, so a resumed run writes the same bytes as an uninterrupted one.
# Wall-clock figures are 0 already: the bench runs the pipeline on a frozen clock.


def stable_trace(trace: Trace, config: RatchetConfig) -> Trace:
    """A trace with cache state removed and every model call at catalog prices."""
    calls = [
        call.model_copy(update={"cache_hit": False, "cost_usd": catalog_usd(config, call.tier, call.usage)})
        for call in trace.model_calls
    ]
    return trace.model_copy(update={"model_calls": calls}).with_totals()


def stable_replays(replays: EditReplays, config: RatchetConfig) -> EditReplays:
    return EditReplays(
        replays={k: stable_trace(t, config) for k, t in sorted(replays.replays.items())},
        base_replays={k: stable_trace(t, config) for k, t in sorted(replays.base_replays.items())},
    )


def stable_pair(pair: PairOutcome, replays: EditReplays, config: RatchetConfig) -> PairOutcome:
    """A pair outcome with its opinions, and the replays it paid for, at catalog prices."""
    opinions = [
        o.model_copy(update={"cache_hit": False, "cost_usd": catalog_usd(config, o.tier, o.usage)})
        for o in pair.opinions
    ]
    usages = [o.usage for o in opinions]
    runs = pair.repeats.replays if pair.repeats is not None else 1
    for key in [pair.task_id, *(f"{pair.task_id}#{run}" for run in range(1, runs))]:  # a repeated pair paid for each
        replay = replays.replays.get(key)
        if replay is not None:
            usages.append(replay.usage)
    base = replays.base_replays.get(pair.task_id)
    if base is not None and pair.drift is not None and pair.drift.base_replay_ran:
        usages.append(base.usage)
    return pair.model_copy(update={"opinions": opinions, "cost_usd": Usage.total(usages).usd})


def stable_verdict(verdict: Verdict, replays: EditReplays, config: RatchetConfig) -> Verdict:
    """The verdict as results.json keeps it: byte-stable for the same inputs and seed."""
    pairs = [stable_pair(p, replays, config) for p in verdict.pairs]
    return verdict.model_copy(update={"pairs": pairs, "cost_usd": sum(p.cost_usd for p in pairs)})


def usage_of(replays: EditReplays, pairs: list[PairOutcome], config: RatchetConfig) -> dict[str, TierUsage]:
    """Per-tier usage of one verdict: the replays it used and every judge opinion, at catalog prices."""
    by_tier: dict[str, list[Usage]] = {}
    for trace in [*replays.replays.values(), *replays.base_replays.values()]:
        for call in trace.model_calls:
            by_tier.setdefault(call.tier, []).append(call.usage)
    for pair in pairs:
        for opinion in pair.opinions:
            by_tier.setdefault(opinion.tier, []).append(opinion.usage)
    usage: dict[str, TierUsage] = {}
    for tier, usages in sorted(by_tier.items()):
        total = Usage.total(usages)
        usage[tier] = TierUsage(
            calls=len(usages),
            tokens_in=total.tokens_in,
            tokens_out=total.tokens_out,
            tokens_cached=total.tokens_cached,
            usd=sum(catalog_usd(config, tier, u) for u in usages),
        )
    return usage


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
