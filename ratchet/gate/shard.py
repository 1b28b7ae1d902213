"""Shards: one check's pairs split over N machines, and the shards merged back into its verdict.

Why a shard file and not the shard's verdict: a verdict is decided over all of an edit's pairs, and
what the gate could not check (settings, submodules, unseen parts) is named once for the whole
edit. A shard replays only its pairs but records everything else the whole check knows (the full
selection, in order, and the unchecked notes, which every shard computes alike from the same two
revisions), so `merge_shards` can decide the same pairs in the same order with the same functions
and give back, byte for byte, the verdict one machine would have written. What differs by pair rides
on the pairs: how each golden was recorded otherwise than its replay ran (ratchet.gate.provenance) is
named from the merged pairs, as evaluate names it from all of them.

Partition: pair i of the selection (0-based, in task order) belongs to shard (i mod N) + 1. Every
shard of a run computes the same selection from the same base and head, so the shards are
disjoint, cover every pair, and differ in size by at most one pair.

Trigger queries (ratchet.gate.triggers) are one family, tested together: shard 1 alone runs them, its file
carries the TriggerCheck, and the merge folds it in where evaluate does, right after the pairs are decided.

A shard alone is never a verdict: `partial_verdict` says so first in its summary, is at least
WARN, and the CLI exits EXIT_PARTIAL (4) for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ratchet.config.project import StaticPolicy
from ratchet.core.errors import InputError
from ratchet.core.jsonio import canonical_dumps, load_json_file
from ratchet.gate.decide import decide_edit, pairs_cost, with_unchecked
from ratchet.gate.models import EvidenceChanges, PairOutcome, Unseen, Verdict
from ratchet.gate.models import Shard as Shard  # a check's context holds it; callers import it here
from ratchet.gate.provenance import unseen_with_provenance
from ratchet.gate.sandbox_notes import merged_sandbox_notes
from ratchet.gate.static import proved_cosmetic, with_static
from ratchet.gate.triggers import with_triggers
from ratchet.triggers.verdict import TriggerCheck

# 2: shard 1 carries the trigger step (`triggers`); a merge that did not know the field would drop it unread.
SHARD_SCHEMA_VERSION = 2
EXIT_PARTIAL = 4
"""`ratchet check --shard`'s exit code once its shard file is written: not 0, so a shard alone never passes."""


@dataclass
class ShardJob:
    """A shard to run (`check_edit(shard=...)`) and, once it has run, what its shard file holds.

    check_edit answers with the shard's partial verdict; the file's content comes back here.
    """

    shard: Shard
    result: ShardResult | None = None


def shard_task_ids(selected: Sequence[str], shard: Shard) -> list[str]:
    """The task ids of `selected` (the whole run's selection, in order) that `shard` replays."""
    return [task_id for position, task_id in enumerate(selected) if shard.owns(position)]


class Unchecked(BaseModel):
    """What the check names as not checked, for the whole edit (ratchet.gate.decide.with_unchecked)."""

    settings_changed: list[str] = Field(default_factory=list)
    submodules_changed: list[str] = Field(default_factory=list)
    nothing_blessed_at: str | None = None
    unowned: list[Unseen] = Field(
        default_factory=list, description="Changed files under the skills folder no skill owns."
    )
    evidence: EvidenceChanges = Field(
        default_factory=EvidenceChanges,
        exclude_if=lambda value: not value,
        description="Goldens, noise records and tasks the edit changes (ratchet.gate.evidence).",
    )

    def named(self, verdict: Verdict) -> Verdict:
        """`verdict` with all of this named first (with_unchecked): what check_edit and merge_shards both end with."""
        return with_unchecked(
            verdict,
            settings_changed=self.settings_changed,
            submodules_changed=self.submodules_changed,
            nothing_blessed_at=self.nothing_blessed_at,
            unseen=self.unowned,
            evidence=self.evidence,
        )


class ShardRun(BaseModel):
    """What every shard of one run shares; `merge_shards` refuses shards whose runs differ."""

    base: str
    head: str
    gate_config: str | None
    on_error: Literal["warn", "block"] = Field(description="The policy the pairs were decided under.")
    on_error_flag: Literal["warn", "block"] | None = Field(
        default=None, description="`--on-error` as given (None: an unchecked pair exits 3), for merge's exit code."
    )
    block_confidence: float
    shards: int = Field(ge=1)
    selected: list[str] = Field(description="Task ids of the whole run's selection, in order.")
    frame: Verdict = Field(
        description="The verdict with no pairs, nothing unchecked and no wall time: what every shard shares."
    )
    replay_unseen: list[Unseen] = Field(default_factory=list, description="Unseen notes over all goldens.")
    unchecked: Unchecked = Field(default_factory=Unchecked)
    static: StaticPolicy = Field(
        default="warn",
        description="The base's `static:` policy (ratchet.gate.static); the frame carries the diff it applies to.",
    )


class ShardResult(BaseModel):
    """One shard's file: its pairs and the run they belong to (`ratchet check --shard-file`)."""

    schema_version: int = SHARD_SCHEMA_VERSION
    kind: Literal["ratchet-check-shard"] = "ratchet-check-shard"
    shard: int = Field(ge=1, description="K of --shard K/N.")
    run: ShardRun
    pairs: list[PairOutcome] = Field(default_factory=list, description="This shard's pairs, in selection order.")
    wall_ms: float = Field(default=0.0, description="How long this shard's check took (the run's frame has 0).")
    triggers: TriggerCheck | None = Field(
        default=None, description="The run's trigger step, in shard 1's file only (ratchet.gate.triggers)."
    )
    sandbox: list[Unseen] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="This shard's note of harness replays run without bubblewrap (ratchet.gate.sandbox_notes): "
        "its replays' own, merged over the shards.",
    )

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


def whole_verdict(
    run: ShardRun,
    pairs: Sequence[PairOutcome],
    *,
    wall_ms: float,
    triggers: TriggerCheck | None = None,
    sandbox: Sequence[Unseen] = (),
) -> Verdict:
    """The verdict over `pairs`, decided and annotated in the order check_edit does it.

    evaluate_edit decides the pairs and names the replay's unseen notes; check_edit then folds in the trigger
    step's `triggers` (ratchet.gate.triggers.with_triggers), applies the
    static policy to the diff the frame carries (ratchet.gate.static) and names its settings,
    submodules, an unblessed base and unowned files (with_unchecked, with_static, with_unchecked:
    their summaries nest in that order). An edit that changes no skill (decide.no_change), or none
    the model reads (static.cosmetic_verdict), was decided before any selection: its frame is
    already the verdict.
    """
    decided = run.frame.model_copy(update={"wall_ms": wall_ms})
    if run.frame.skills_changed and not proved_cosmetic(run.frame.diff):
        decision, summary = decide_edit(pairs, on_error=run.on_error, block_confidence=run.block_confidence)
        decided = with_unchecked(
            decided.model_copy(
                update={
                    "pairs": list(pairs),
                    "decision": decision,
                    "summary": summary,
                    "cost_usd": pairs_cost(pairs),
                }
            ),
            unseen=unseen_with_provenance(pairs, [*run.replay_unseen, *merged_sandbox_notes(sandbox)]),
        )
        decided = with_triggers(decided, triggers)
        decided = with_static(decided, run.frame.diff, policy=run.static)
    return run.unchecked.named(decided)


def shard_of(
    job: ShardJob,
    verdict: Verdict,
    *,
    block_confidence: float,
    selected: list[str],
    goldens_total: int,
    replay_unseen: list[Unseen],
    unchecked: Unchecked,
    static: StaticPolicy,
) -> Verdict:
    """The shard's partial verdict (check_edit); its file's content into `job.result`.

    `verdict` holds this shard's pairs; `selected` and `replay_unseen` are the whole run's (evaluate_edit
    selects once over all goldens and names what no replay could see over all of them, as the unsharded
    check does), and the frame takes the whole run's golden count.
    """
    frame = verdict.model_copy(
        update={
            "pairs": [],
            "decision": "PASS",
            "summary": "",
            "cost_usd": 0.0,
            "wall_ms": 0.0,
            "unseen": [],
            "goldens_total": goldens_total,
            "settings_changed": [],
            "submodules_changed": [],
            "triggers": None,  # shard 1's file carries it (ShardResult.triggers): the frame is what all shards share
        }
    )
    return _shard_result(
        job,
        frame,
        verdict,
        block_confidence=block_confidence,
        selected=selected,
        replay_unseen=replay_unseen,
        unchecked=unchecked,
        static=static,
    )


def shard_of_no_change(
    job: ShardJob, verdict: Verdict, unchecked: Unchecked, *, block_confidence: float, static: StaticPolicy
) -> Verdict:
    """An edit that changes no skill, or none the model reads (static.proved_cosmetic), has no pairs to split:
    every shard holds the same verdict."""
    frame = verdict.model_copy(update={"wall_ms": 0.0})
    return _shard_result(
        job,
        frame,
        verdict,
        block_confidence=block_confidence,
        selected=[],
        replay_unseen=[],
        unchecked=unchecked,
        static=static,
    )


def _shard_result(
    job: ShardJob,
    frame: Verdict,
    verdict: Verdict,
    *,
    block_confidence: float,
    selected: list[str],
    replay_unseen: list[Unseen],
    unchecked: Unchecked,
    static: StaticPolicy,
) -> Verdict:
    run = ShardRun(
        base=frame.base,
        head=frame.head,
        gate_config=frame.gate_config,
        on_error=frame.on_error,
        block_confidence=block_confidence,
        shards=job.shard.count,
        selected=selected,
        frame=frame,
        replay_unseen=replay_unseen,
        unchecked=unchecked,
        static=static,
    )
    job.result = ShardResult(
        shard=job.shard.index,
        run=run,
        pairs=verdict.pairs,
        wall_ms=verdict.wall_ms,
        triggers=verdict.triggers,
        sandbox=[note for note in verdict.unseen if note.kind == "sandbox"],  # its replays': not the run's to share
    )
    return partial_verdict(job.result)


def partial_note(result: ShardResult) -> str:
    """The line a shard's verdict opens with: what it covers, and that it is not the check's verdict."""
    return (
        f"PARTIAL: shard {result.shard}/{result.run.shards}, {len(result.pairs)} of {len(result.run.selected)} "
        f"affected golden(s), not the check's verdict: run ratchet merge on all {result.run.shards} shard files"
    )


def partial_verdict(result: ShardResult) -> Verdict:
    """A shard's own verdict: its pairs only, said to be partial first, and never PASS."""
    verdict = whole_verdict(
        result.run, result.pairs, wall_ms=result.wall_ms, triggers=result.triggers, sandbox=result.sandbox
    )
    decision = "WARN" if verdict.decision == "PASS" else verdict.decision
    return verdict.model_copy(update={"decision": decision, "summary": f"{partial_note(result)}; {verdict.summary}"})


# -- merge -----------------------------------------------------------------------------------------


def load_shard(path: Path) -> ShardResult:
    """A shard file, or one InputError naming it."""
    data = load_json_file(path, error=InputError)
    if not isinstance(data, dict) or data.get("kind") != "ratchet-check-shard":
        raise InputError("not a shard file of ratchet check --shard K/N --shard-file FILE", path=path)
    if data.get("schema_version") != SHARD_SCHEMA_VERSION:
        raise InputError(
            f"shard file schema_version {data.get('schema_version')!r}, this Ratchet reads "
            f"{SHARD_SCHEMA_VERSION}: re-run the shard with this version",
            path=path,
        )
    try:
        return ShardResult.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise InputError(f"not a valid shard file: {where}: {first['msg']}", path=path) from None


def merge_shards(paths: Sequence[Path]) -> tuple[Verdict, ShardRun]:
    """The verdict the unsharded check writes, from all N shard files of one run (in any order).

    Refused in one line (InputError, exit 2): shards of different runs (base, head, gate config,
    policy or selection), a shard given twice, or a shard missing.
    """
    if not paths:
        raise InputError("ratchet merge needs the shard files of one run, e.g. ratchet merge shard-*.json")
    results = [(path, load_shard(path)) for path in paths]
    first_path, first = results[0]
    seen: dict[int, Path] = {}
    for path, result in results:
        if result.run != first.run:
            raise InputError(
                f"shard {result.shard}/{result.run.shards} is of another run than {first_path} "
                f"({_difference(first.run, result.run)}): merge the shards of one check",
                path=path,
            )
        if result.shard > result.run.shards:
            raise InputError(f"shard {result.shard} of {result.run.shards} does not exist", path=path)
        if result.shard in seen:
            raise InputError(
                f"shard {result.shard}/{result.run.shards} given twice (also {seen[result.shard]}): "
                "give each shard file once",
                path=path,
            )
        seen[result.shard] = path
    missing = [k for k in range(1, first.run.shards + 1) if k not in seen]
    if missing:
        raise InputError(
            f"shard(s) {', '.join(f'{k}/{first.run.shards}' for k in missing)} missing: "
            "merge needs every shard of the run"
        )
    by_task = {pair.task_id: pair for _, result in results for pair in result.pairs}
    if sorted(by_task) != sorted(first.run.selected) or len(by_task) != sum(len(r.pairs) for _, r in results):
        raise InputError(
            "the shards' pairs are not the run's selection: re-run the shards with one Ratchet version", path=first_path
        )
    pairs = [by_task[task_id] for task_id in first.run.selected]
    # The shards run side by side (a CI matrix): the check took as long as its slowest shard.
    wall_ms = max(result.wall_ms for _, result in results)
    triggers = next((result.triggers for _, result in results if result.shard == 1), None)
    sandbox = [note for _, result in results for note in result.sandbox]
    return whole_verdict(first.run, pairs, wall_ms=wall_ms, triggers=triggers, sandbox=sandbox), first.run


def _difference(a: ShardRun, b: ShardRun) -> str:
    for name in ("base", "head", "gate_config", "on_error", "on_error_flag", "shards", "block_confidence", "static"):
        if getattr(a, name) != getattr(b, name):
            return f"{name} {getattr(a, name)!r} vs {getattr(b, name)!r}"
    if a.selected != b.selected:
        return "a different selection of goldens"
    return "different skills, goldens or unchecked notes"
