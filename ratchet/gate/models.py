"""What crosses the gate's stages: findings, opinions, drift evidence, pair outcomes, verdicts, replays.

Data only. Every stage (select, replay, level0, drift, cascade, decide) imports from here and
nothing here imports a stage, so a reader can learn the gate's vocabulary from one file and a
stage can change without dragging the others' models with it.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field

from ratchet.config.gate import JudgeVerdict
from ratchet.core.chat import USD, Usage
from ratchet.core.errors import InputError
from ratchet.core.jsonio import canonical_dumps
from ratchet.diff.models import SkillDiff
from ratchet.gate.evidence_models import CoverageLoss as CoverageLoss
from ratchet.gate.evidence_models import EvidenceChange as EvidenceChange
from ratchet.gate.evidence_models import EvidenceChangeKind as EvidenceChangeKind
from ratchet.gate.evidence_models import EvidenceChanges as EvidenceChanges
from ratchet.gate.evidence_models import EvidenceKind as EvidenceKind
from ratchet.gate.model_change_models import ModelChange
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.triggers.verdict import TriggerCheck

VERDICT_SCHEMA_VERSION = 1
REPLAYS_SCHEMA_VERSION = 1

FindingKind = Literal[
    "routing_changed", "call_added", "call_removed", "args_changed", "call_moved", "new_side_effect",
    "output_changed", "volatile_changed", "replay_error", "state_changed", "repeated_after_lost_reply",
]  # fmt: skip
Severity = Literal["hard", "diff", "info"]
Outcome = Literal["same", "pass", "drift", "regression", "unsure", "inconclusive", "error"]
Decision = Literal["PASS", "WARN", "BLOCK"]
JUDGE_VERDICTS: tuple[str, ...] = ("same", "pass", "regression", "unsure")
SelectedBecause = Literal["routed", "trigger-neighbourhood", "catalog-neighbour", "model-change"]
UnseenKind = Literal["unfollowed", "unrouted", "unsent", "prose", "thin", "provenance", "mutation", "judge", "sandbox"]
UnseenLevel = Literal["warn", "note"]
ProvenanceKind = Literal["upstream", "agent_model", "harness", "tool_protocol", "ratchet_version"]

_SHARD = re.compile(r"^(\d+)/(\d+)$")


class Shard(BaseModel):
    """Which part of a run: shard `index` of `count` (1-based, as `--shard K/N` spells it)."""

    index: int = Field(ge=1)
    count: int = Field(ge=1)

    @classmethod
    def parse(cls, text: str, *, flag: str = "--shard") -> Shard:
        """`K/N` with 1 <= K <= N; anything else is one InputError saying what to write."""
        match = _SHARD.match(text.strip())
        if match is None or not 1 <= int(match.group(1)) <= int(match.group(2)):
            raise InputError(f"{flag} {text!r}: expected K/N with 1 <= K <= N, e.g. {flag} 2/3")
        return cls(index=int(match.group(1)), count=int(match.group(2)))

    @property
    def label(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, position: int) -> bool:
        """Whether the pair at `position` (0-based) in the run's selection is this shard's."""
        return position % self.count == self.index - 1


class Selected(BaseModel):
    """A golden the gate must replay, and why."""

    task: Task
    golden: Trace
    because: SelectedBecause
    run: int = Field(
        default=0, ge=0, description="Which replay of this golden: 0 the first, 1.. repeats (each its own seed)."
    )

    @property
    def replay_key(self) -> str:
        """The key its replay is stored under: the task id, `<task>#<run>` for a repeat."""
        return self.task.id if self.run == 0 else f"{self.task.id}#{self.run}"


class Finding(BaseModel):
    """One deterministic difference between a golden and its replay."""

    kind: FindingKind
    severity: Severity = Field(description="hard: blocks on its own; diff: needs judging; info: context.")
    detail: str
    tool: str | None = None
    effect: str | None = None
    golden_index: int | None = Field(default=None, description="Tool call index in the golden.")
    replay_index: int | None = Field(default=None, description="Tool call index in the replay.")
    path: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="state_changed: the world path whose final state differs (ratchet.gate.state_diff).",
    )
    known_to_vary: bool = Field(
        default=False,
        exclude_if=lambda value: not value,
        description="The golden's noise record saw this part vary (ratchet.gate.variation).",
    )


class Opinion(BaseModel):
    """One tier's answer about one pair, or the record that it could not give one."""

    tier: str
    model: str = ""
    prompt_version: str = Field(description="Version of the judge prompt it was asked with.")
    verdict: JudgeVerdict | None = Field(default=None, description="None when the opinion is an error.")
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    changed_elements: list[str] = Field(default_factory=list)
    rationale: str = ""
    error: str | None = Field(default=None, description="Why no opinion could be parsed (after one retry).")
    attempts: int = 1
    cost_usd: USD = 0.0
    latency_ms: float = 0.0
    tokens_in: int = 0
    tokens_out: int = 0
    tokens_cached: int = Field(default=0, description="Prompt tokens the provider served from its prompt cache.")
    cache_hit: bool = False
    swapped: bool = Field(
        default=False, description="Asked with the replay's output shown before the golden's (a tier's swap_check)."
    )
    run: int = Field(
        default=0,
        ge=0,
        exclude_if=lambda value: value == 0,
        description="Which replay of the pair it judged: 0 the first, 1.. a repeat (ratchet.gate.repeats).",
    )

    @property
    def is_error(self) -> bool:
        return self.verdict is None

    @property
    def asked_as(self) -> str:
        """The tier as evidence shows it: `super`, `super (replay first)`, `ultra (replay 2)`."""
        notes = (["replay first"] if self.swapped else []) + ([f"replay {self.run + 1}"] if self.run else [])
        return f"{self.tier} ({', '.join(notes)})" if notes else self.tier

    @property
    def usage(self) -> Usage:
        """What this tier's calls (every attempt) used and cost."""
        return Usage(
            tokens_in=self.tokens_in, tokens_out=self.tokens_out, tokens_cached=self.tokens_cached, usd=self.cost_usd
        )


class MovedFact(BaseModel):
    """A volatile fact whose value differs between the golden and the replay."""

    key: str
    golden_value: Any = None
    replay_value: Any = None
    confirmed: bool = False
    source: str = Field(default="", description="Where search confirmed (or failed to confirm) it.")


class DriftEvidence(BaseModel):
    """What the drift check saw, kept on the pair so a reviewer can follow it."""

    moved: list[MovedFact] = Field(default_factory=list)
    base_replay_ran: bool = False
    base_matches_replay: bool = False
    is_drift: bool = False
    note: str = ""


class JudgeResult(BaseModel):
    """What Level 0, drift or the judges settled about one pair (before it becomes a PairOutcome)."""

    outcome: Outcome
    decided_by: str = Field(description="level0, drift, error, or the tier whose opinion decided.")
    reason: str
    confidence: float | None = None
    opinions: list[Opinion] = Field(default_factory=list)

    @property
    def usage(self) -> Usage:
        """What the judges' calls used."""
        return Usage.total(opinion.usage for opinion in self.opinions)


class RepeatEvidence(BaseModel):
    """Why a pair that differed only where its golden is known to vary was replayed again, and what came of it.

    The test is Fisher's exact test, one-sided, of `regressions` of `replays` against the golden's
    own `flips` of `repeats`, curtailed at `max_replays` (ratchet.stats.binomial; docs/adr/0017).
    """

    trigger: Literal["known-variation", "unsure-judges"] = Field(
        description="known-variation: every difference is in a part the noise record saw vary; "
        "unsure-judges: the judges were not confident and the golden is known to vary."
    )
    replays: int = Field(ge=1, description="Replays run for this pair, the first included.")
    regressions: int = Field(
        ge=0,
        description="Repeats (the replays after the first) judged a regression: what "
        "the test counts. The first replay raised the question, so it is not counted.",
    )
    outcomes: list[Outcome] = Field(default_factory=list, description="Each replay's outcome, the first included.")
    flips: int = Field(ge=0, description="The golden's own replays that differed from it (noise record).")
    repeats: int = Field(ge=1, description="The golden's own replays the noise record counted.")
    max_repeats: int = Field(ge=1, description="Repeats the test plans for: the config's max_replays - 1.")
    needed: int | None = Field(description="Regressions of max_repeats that reject at alpha; None: none can.")
    alpha: float
    p_value: float = Field(description="The least significant way the max_repeats could end, given what ran.")
    budget_stopped: bool = Field(default=False, description="The spend cap stopped the repeats early.")


class ProvenanceDifference(BaseModel):
    """One way a golden was recorded otherwise than its replay ran (ratchet.gate.provenance): what each had, e.g.
    sim and live, or claude-code 2.0.1 and minimal (Ratchet's own runner)."""

    kind: ProvenanceKind
    golden: str
    replay: str


class PairOutcome(BaseModel):
    """One (golden, replay) pair: why it was selected, what Level 0 found, what it came to."""

    task_id: str
    golden_skill: str | None
    replay_skill: str | None = None
    selected_because: SelectedBecause
    outcome: Outcome
    decided_by: str = Field(description="level0, a judge tier, drift, or error.")
    reason: str
    findings: list[Finding] = Field(default_factory=list)
    cost_usd: USD = Field(default=0.0, description="Paid for the replay, its judges and drift's base replay.")
    latency_ms: float = 0.0
    error: str | None = None
    confidence: float | None = Field(
        default=None, description="Confidence of the deciding judge opinion; None when no judge decided."
    )
    opinions: list[Opinion] = Field(default_factory=list, description="Every tier's opinion, in escalation order.")
    drift: DriftEvidence | None = Field(default=None, description="What the drift check saw, when it ran.")
    hint: str | None = Field(default=None, description="What to do next, e.g. re-bless the golden after drift.")
    repeats: RepeatEvidence | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set when the pair was replayed more than once (ratchet.gate.repeats); absent otherwise.",
    )
    provenance: list[ProvenanceDifference] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="How the golden's recording differs from its replay's run (ratchet.gate.provenance); absent: alike.",
    )


class Unseen(BaseModel):
    """A part of an edit the gate did not read, route or replay (docs/adr/0012-never-a-silent-pass.md).

    `warn` floors the edit at WARN and its text leads the summary; `note` is listed and changes nothing
    (prose the simulator does not read: the benchmark's cosmetic controls edit exactly that).
    """

    kind: UnseenKind = Field(
        description="unfollowed, unrouted, unsent, prose, thin (a golden blessed with --accept-thin), provenance (a "
        "golden recorded under another upstream, harness, model or tool protocol), mutation (a note: the base's "
        "mutation score says the skill's goldens killed none of its mutants), judge (a note: answers in free text) or "
        "sandbox (a note: harness replays ran without bubblewrap, and why)."
    )
    skill: str = Field(
        description="The changed skill it is about (for a changed file under the skills folder "
        "that belongs to no skill: its repo path)."
    )
    detail: str = Field(description="One line saying what was not seen and what would see it.")
    level: UnseenLevel


class Verdict(BaseModel):
    """The gate's answer for one edit (one or more changed skills between two states)."""

    schema_version: int = VERDICT_SCHEMA_VERSION
    base: str
    head: str = Field(description="A commit sha, or '<index>' for --staged.")
    skills_changed: list[str]
    decision: Decision
    summary: str
    pairs: list[PairOutcome] = Field(default_factory=list)
    goldens_total: int = 0
    cost_usd: USD = 0.0
    wall_ms: float = 0.0
    simulated: bool = True
    on_error: Literal["warn", "block"] | None = Field(
        default="warn",
        description="What a pair that could not be checked does: warn (at least WARN) or block "
        "(BLOCK), as `--on-error` gave it. null: no `--on-error` was given, `ratchet check`'s default: such a pair "
        "BLOCKs the verdict and the check exits 3 (infrastructure).",
    )
    gate_config: str | None = Field(default=None, description="Name of the gate config that judged it.")
    settings_changed: list[str] = Field(
        default_factory=list,
        description="Repo paths of the gate's own settings the edit changes (ratchet.yaml, configs/, a prompt a "
        "config points at); the edit was still checked with the base's settings (docs/adr/0011).",
    )
    submodules_changed: list[str] = Field(
        default_factory=list, description="Repo paths of submodules in the skills folder whose commit changed (unseen)."
    )
    unseen: list[Unseen] = Field(
        default_factory=list,
        description="What of the edit the gate did not read, route or replay, warnings first; empty in verdicts "
        "written before it existed (an added field with a default: the schema version stays 1).",
    )
    evidence_changed: EvidenceChanges = Field(
        default_factory=EvidenceChanges,
        exclude_if=lambda value: not value,
        description="Goldens, noise records and tasks the edit adds, changes, moves or removes, and the skills "
        "left with less coverage; absent when there are none (an added field: the schema version stays 1).",
    )
    diff: list[SkillDiff] = Field(
        default_factory=list,
        exclude_if=lambda value: not value,
        description="The behavioural diff of each changed skill, read without a model for the harness the edit was "
        "replayed with (ratchet.diff, docs/diff.md): its findings, or why it is cosmetic. A finding the static policy "
        "acts on in a skill no replay exercised floors the verdict (ratchet.gate.static); absent when no skill "
        "changed (an added field: the schema version stays 1).",
    )
    model_change: ModelChange | None = Field(default=None, exclude_if=lambda value: value is None)
    triggers: TriggerCheck | None = Field(default=None, exclude_if=lambda value: value is None)
    answered_from: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set when `ratchet check` answered from a stored verdict, named here (docs/outputs.md).",
    )
    harness_untested: str | None = Field(
        default=None,
        exclude_if=lambda value: value is None,
        description="Set when a replay ran through a harness release outside the range Ratchet is tested with, "
        "naming it ('claude-code 2.0.1 is outside the tested range 2.1.197-2.1.332: ...'; ratchet.harness.versions); "
        "every format puts it on its first line. A name, not a warning: the decision is unchanged.",
    )

    def to_json(self) -> str:
        return canonical_dumps(self.model_dump(mode="json"))


class EditReplays(BaseModel):
    """The agent replays one evaluation made: under the edited skills, and of the unchanged skills for drift."""

    schema_version: int = REPLAYS_SCHEMA_VERSION
    replays: dict[str, Trace] = Field(default_factory=dict, description="task id -> replay under the edited skills.")
    base_replays: dict[str, Trace] = Field(
        default_factory=dict, description="task id -> replay of the unchanged skills on the current world (drift)."
    )
