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

from typing import Protocol

from ratchet.core.chat import Usage
from ratchet.core.clock import elapsed_ms
from ratchet.gate.cascade import run_cascade
from ratchet.gate.context import CheckContext
from ratchet.gate.drift import DriftCheck, drift_check, moved_facts
from ratchet.gate.judge_prompt import pair_diffs
from ratchet.gate.level0 import level0_findings, settled_by_level0
from ratchet.gate.models import DriftEvidence, Finding, JudgeResult, PairOutcome, Selected
from ratchet.gate.variation import known_variation_text, mark_known, variation_parts
from ratchet.goldens.trace import Trace

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
    item: Selected, source: ReplaySource, run: CheckContext, *, pair_id: str | None = None, record_base: bool = False
) -> PairOutcome:
    """Gate one selected golden with `run`'s config, judges and search; see the module docstring for the order.

    `record_base` replays the unchanged skill whenever a volatile fact moved, even if this
    configuration will not ask for it, so a re-judging configuration finds it stored. The golden's
    noise record (`run.noise`): when it saw the golden vary, the judges are told where (and whether this
    replay differs only there); whether to replay again is ratchet.gate.repeats' question. `run.diffs`: the
    edit's behavioural diff per changed skill; the judges see the findings of the skills this pair ran.
    """
    started = run.clock()
    golden, noise = item.golden, run.noise.get(item.task.id)
    replay = source.replay(item)
    findings = level0_findings(golden, replay, state_diff=run.config.state_diff)
    if noise is not None and noise.known_to_vary:
        findings = mark_known(findings, golden, replay, noise)
    if record_base and replay.status == "ok" and moved_facts(golden, replay):
        source.replay_base(item)
    settled = settled_by_level0(findings, hard_fails_decide=run.config.level0)
    if settled is not None and settled.outcome in ("error", "same"):
        return _outcome(item, replay, findings, settled, latency_ms=elapsed_ms(run.clock, started))

    check: DriftCheck | None = None
    if run.config.drift.enabled and run.search is not None:
        check = drift_check(golden, replay, replay_base=lambda: source.replay_base(item), search=run.search)
    drift = check.evidence if check is not None else None
    base_usage = check.base_replay.usage if check is not None and check.base_replay is not None else Usage()
    if drift is not None and drift.is_drift:
        result = JudgeResult(outcome="drift", decided_by="drift", reason=drift.note)
        latency_ms = elapsed_ms(run.clock, started)
        return _outcome(
            item, replay, findings, result, latency_ms=latency_ms, drift=drift, base_usage=base_usage, hint=REBLESS_HINT
        )
    result = _judged(item, replay, findings, settled, check, run, pair_id=pair_id or item.task.id)
    latency_ms = elapsed_ms(run.clock, started)
    return _outcome(item, replay, findings, result, latency_ms=latency_ms, drift=drift, base_usage=base_usage)


def _judged(
    item: Selected,
    replay: Trace,
    findings: list[Finding],
    settled: JudgeResult | None,
    check: DriftCheck | None,
    run: CheckContext,
    *,
    pair_id: str,
) -> JudgeResult:
    """A pair drift did not explain: Level 0's hard fail, else the judge cascade.

    When drift replayed the unchanged skill on the moved world and it behaves unlike this replay, that
    replay is the reference: judge only what the edit changed."""
    golden = item.golden
    reference, reference_findings, prefix = golden, findings, ""
    if check is not None and check.base_replay is not None:
        drift = check.evidence
        if drift.base_replay_ran and not drift.base_matches_replay:
            reference = check.base_replay
            reference_findings = level0_findings(reference, replay, state_diff=run.config.state_diff)
            settled = settled_by_level0(reference_findings, hard_fails_decide=run.config.level0)
            pair_id = f"{pair_id}:vs-base"
            prefix = "judged against the unchanged skill on the current world: "
    noise = run.noise.get(item.task.id)
    known = (
        known_variation_text(noise, variation_parts(golden, replay))
        if noise is not None and noise.known_to_vary and settled is None
        else None
    )
    result = settled or run_cascade(
        reference,
        replay,
        reference_findings,
        run,
        task=item.task,
        pair_id=pair_id,
        known_variation=known,
        diffs=pair_diffs(run.diffs, golden.fired_skill, replay.fired_skill),
    )
    return result.model_copy(update={"reason": prefix + result.reason}) if prefix else result


def _outcome(
    item: Selected,
    replay: Trace,
    findings: list[Finding],
    result: JudgeResult,
    *,
    latency_ms: float,
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
        latency_ms=latency_ms,
        error=replay.error,
        confidence=result.confidence,
        opinions=result.opinions,
        drift=drift,
        hint=hint,
    )
