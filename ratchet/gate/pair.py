"""One pair, one path: replay -> Level 0 -> drift -> cascade -> PairOutcome.

Every caller that gates a (golden, replay) pair comes through `gate_pair`: `evaluate_edit`
for `ratchet check` and the bench's edits, and the bench's noise measurement. The order is
stated once, here:

1. replay      the task again, from the pair's replay source (an agent, or stored replays)
2. level0      diff against the golden; a failed replay is `error`, an identical one `same`
3. drift       when a volatile fact moved and drift is on: the unchanged skill on the moved
               world explains the difference (`drift`), or becomes the reference the
               edit is judged against. It runs before Level 0's hard-fail shortcut, so a new
               call the world causes is drift, while one the edit adds still blocks.
4. hard fail   a new side-effecting call (Level 0 on) is a regression; no judge can overrule it
5. cascade     the judge tiers, escalating while unsure; no tiers means `unsure`
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ratchet.clock import Clock, elapsed_ms, wall_clock
from ratchet.diff.models import SkillDiff
from ratchet.gate.cascade import run_cascade
from ratchet.gate.drift import FactSearch, drift_check, moved_facts
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.judge_prompt import JudgePrompt, pair_diffs
from ratchet.gate.level0 import level0_findings, settled_by_level0
from ratchet.gate.models import DriftEvidence, Finding, JudgeResult, PairOutcome, Selected
from ratchet.gate.variation import known_variation_text, mark_known, variation_parts
from ratchet.llm.types import ChatModel, Usage
from ratchet.noise_record import NoiseRecord
from ratchet.trace import Trace

REBLESS_HINT = "the world moved, not the skill: re-bless this golden (ratchet golden bless)"


class ReplaySource(Protocol):
    """Where a pair's replays come from (see gate.replay.Replayer)."""

    def replay(self, item: Selected) -> Trace:
        """The task under the edited skills."""
        ...

    def replay_base(self, item: Selected) -> Trace:
        """The task under the unchanged skills on the current world (asked only by drift)."""
        ...


def gate_pair(
    item: Selected,
    source: ReplaySource,
    *,
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    search: FactSearch | None,
    pair_id: str | None = None,
    clock: Clock = wall_clock,
    record_base: bool = False,
    prompt: JudgePrompt | None = None,
    noise: NoiseRecord | None = None,
    diffs: Sequence[SkillDiff] = (),
) -> PairOutcome:
    """Gate one selected golden; see the module docstring for the order.

    `record_base` replays the unchanged skill whenever a volatile fact moved, even if this
    configuration will not ask for it, so a re-judging configuration finds it stored. `noise`, the
    golden's noise record: when it saw the golden vary, the judges are told where (and whether this
    replay differs only there); whether to replay again is ratchet.gate.repeats' question. `diffs`: the
    edit's behavioural diff per changed skill; the judges see the findings of the skills this pair ran.
    """
    started = clock()
    pair_id = pair_id or item.task.id
    golden = item.golden
    replay = source.replay(item)
    findings = level0_findings(golden, replay)
    if noise is not None and noise.known_to_vary:
        findings = mark_known(findings, golden, replay, noise)
    if record_base and replay.status == "ok" and moved_facts(golden, replay):
        source.replay_base(item)
    settled = settled_by_level0(findings, hard_fails_decide=config.level0)
    if settled is not None and settled.outcome in ("error", "same"):
        return _outcome(item, replay, findings, settled, clock=clock, started=started)

    drift: DriftEvidence | None = None
    base_usage = Usage()
    reference, reference_findings, prefix = golden, findings, ""
    if config.drift.enabled and search is not None:
        check = drift_check(golden, replay, replay_base=lambda: source.replay_base(item), search=search)
        if check is not None:
            drift = check.evidence
            if check.base_replay is not None:
                base_usage = check.base_replay.usage
            if drift.is_drift:
                result = JudgeResult(outcome="drift", decided_by="drift", reason=drift.note)
                return _outcome(
                    item,
                    replay,
                    findings,
                    result,
                    drift=drift,
                    base_usage=base_usage,
                    hint=REBLESS_HINT,
                    clock=clock,
                    started=started,
                )
            if check.base_replay is not None and drift.base_replay_ran and not drift.base_matches_replay:
                # Judge only what the edit changed: the unchanged skill on the moved world is the reference.
                reference = check.base_replay
                reference_findings = level0_findings(reference, replay)
                settled = settled_by_level0(reference_findings, hard_fails_decide=config.level0)
                pair_id = f"{pair_id}:vs-base"
                prefix = "judged against the unchanged skill on the current world: "

    known = (
        known_variation_text(noise, variation_parts(golden, replay))
        if noise is not None and noise.known_to_vary and settled is None
        else None
    )
    result = settled or run_cascade(
        reference,
        replay,
        reference_findings,
        task=item.task,
        config=config,
        judges=judges,
        pair_id=pair_id,
        prompt=prompt,
        clock=clock,
        known_variation=known,
        diffs=pair_diffs(diffs, golden.fired_skill, replay.fired_skill),
    )
    if prefix:
        result = result.model_copy(update={"reason": prefix + result.reason})
    return _outcome(item, replay, findings, result, drift=drift, base_usage=base_usage, clock=clock, started=started)


def _outcome(
    item: Selected,
    replay: Trace,
    findings: list[Finding],
    result: JudgeResult,
    *,
    clock: Clock,
    started: float,
    drift: DriftEvidence | None = None,
    base_usage: Usage | None = None,
    hint: str | None = None,
) -> PairOutcome:
    """The one place a PairOutcome is built."""
    return PairOutcome(
        task_id=item.task.id,
        golden_skill=item.golden.fired_skill,
        replay_skill=replay.fired_skill,
        selected_because=item.because,
        outcome=result.outcome,
        decided_by=result.decided_by,
        reason=result.reason,
        findings=findings,
        cost_usd=Usage.total([replay.usage, result.usage, base_usage or Usage()]).usd,
        latency_ms=elapsed_ms(clock, started),
        error=replay.error,
        confidence=result.confidence,
        opinions=result.opinions,
        drift=drift,
        hint=hint,
    )
