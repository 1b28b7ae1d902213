"""The judge cascade: Nano screens, Super checks, Ultra adjudicates, escalating only while unsure.

One code path for every configuration: the tiers, their thresholds and what each escalates
on come from GateConfig. The outcome is computed here from each opinion's verdict and
confidence; the judges' free text is evidence for a human, never an input to the decision.
A Level 0 hard fail is decided before any judge is asked (when Level 0 is on), so no judge
can overrule it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from pydantic import BaseModel, Field

from ratchet.errors import ConfigError, InfraError
from ratchet.gate.drift import DriftEvidence, FactSearch, drift_check
from ratchet.gate.gate_config import GateConfig, TierStep
from ratchet.gate.judge_prompt import (
    JudgePrompt,
    build_judge_request,
    judge_sections,
    load_judge_prompt,
)
from ratchet.gate.level0 import level0_findings
from ratchet.gate.opinion import Opinion, parse_answer
from ratchet.gate.verdict import Finding, Outcome
from ratchet.llm.types import ChatModel
from ratchet.tasks import Task
from ratchet.trace import Trace

MAX_ATTEMPTS = 2  # one retry for an unparseable answer; call failures are retried in the gateway
REBLESS_HINT = "the world moved, not the skill: re-bless this golden (ratchet golden bless)"


class JudgeResult(BaseModel):
    """What judging one pair came to."""

    outcome: Outcome
    decided_by: str = Field(description="level0, drift, error, or the tier whose opinion decided.")
    reason: str
    confidence: float | None = None
    opinions: list[Opinion] = Field(default_factory=list)
    drift: DriftEvidence | None = None
    hint: str | None = None
    cost_usd: float = 0.0
    latency_ms: float = 0.0


def ask_judge(model: ChatModel, prompt: JudgePrompt, sections: Mapping[str, str], *, pair_id: str, step: TierStep) -> Opinion:
    """One tier's opinion. Unparseable twice, or a failed call: an error opinion, never dropped."""
    opinion = Opinion(tier=step.tier, model=model.model_id, prompt_version=prompt.version)
    problem = ""
    for attempt in range(1, MAX_ATTEMPTS + 1):
        request = build_judge_request(
            prompt, sections, pair_id=pair_id, tier=step.tier, attempt=attempt,
            max_input_tokens=step.max_input_tokens, max_output_tokens=step.max_output_tokens,
        )
        opinion.attempts = attempt
        try:
            response = model.complete(request)
        except InfraError as exc:
            opinion.error = f"model call failed: {exc.message}"
            return opinion
        opinion.model = response.model or opinion.model
        opinion.cost_usd = round(opinion.cost_usd + response.cost_usd, 9)
        opinion.latency_ms = round(opinion.latency_ms + response.latency_ms, 3)
        opinion.tokens_in += response.usage.tokens_in
        opinion.tokens_out += response.usage.tokens_out
        opinion.cache_hit = response.cache_hit
        try:
            answer = parse_answer(response.message.content)
        except ValueError as exc:
            problem = str(exc)
            continue
        opinion.verdict = answer.verdict
        opinion.confidence = answer.confidence
        opinion.changed_elements = answer.changed_elements
        opinion.rationale = answer.rationale
        return opinion
    opinion.error = f"unparseable after {MAX_ATTEMPTS} attempts: {problem}"
    return opinion


def escalates(opinion: Opinion, step: TierStep) -> bool:
    """Whether the next tier must look: an error, a verdict this tier escalates, or low confidence."""
    if opinion.verdict is None:
        return True
    return opinion.verdict in step.escalate_on or opinion.confidence < step.threshold


def _describe(opinion: Opinion) -> str:
    if opinion.verdict is None:
        return f"{opinion.tier} error ({opinion.error})"
    return f"{opinion.tier}: {opinion.verdict} at {opinion.confidence:.2f}"


def outcome_of(opinions: Sequence[Opinion]) -> tuple[Outcome, str, float | None, str]:
    """(outcome, deciding tier, confidence, reason) from the opinions in escalation order.

    The last opinion decides. If it is an error, an earlier regression still stands (an error
    never weakens a regression); otherwise the pair is an error (fail closed).
    """
    trail = "; ".join(_describe(o) for o in opinions)
    last = opinions[-1]
    if last.verdict is None:
        earlier = [o for o in opinions if o.verdict == "regression"]
        if earlier:
            o = earlier[-1]
            return "regression", o.tier, o.confidence, f"{trail} (the {o.tier} regression stands)"
        return "error", "error", None, f"no judge could decide: {trail}"
    outcome: Outcome = "pass" if last.verdict in ("same", "pass") else last.verdict
    return outcome, last.tier, last.confidence, trail


def level0_gate(findings: Sequence[Finding], config: GateConfig) -> JudgeResult | None:
    """What is settled before any judge: a failed replay, an identical pair, a hard fail."""
    errors = [f for f in findings if f.kind == "replay_error"]
    if errors:
        return JudgeResult(outcome="error", decided_by="error", reason=f"replay failed: {errors[0].detail}")
    if not any(f.severity in ("hard", "diff") for f in findings):
        return JudgeResult(outcome="same", decided_by="level0", reason="identical to the golden")
    hard = [f for f in findings if f.severity == "hard"]
    if hard and config.level0:
        return JudgeResult(outcome="regression", decided_by="level0", reason=f"hard fail: {hard[0].detail}")
    return None


def judge_pair(
    golden: Trace,
    replay: Trace,
    findings: Sequence[Finding],
    *,
    task: Task,
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    pair_id: str,
    prompt: JudgePrompt | None = None,
) -> JudgeResult:
    """Level 0's shortcuts, then the tiers in order until one is sure enough."""
    started = time.perf_counter()
    settled = level0_gate(findings, config)
    if settled is not None:
        return settled
    missing = [s.tier for s in config.tiers if s.tier not in judges]
    if missing:
        raise ConfigError(f"gate config {config.name!r} needs judge tiers with no model: {', '.join(missing)}")
    prompt = prompt or load_judge_prompt(config.prompt_path())
    shown = findings if config.level0 else []
    sections = judge_sections(task.prompt, golden, replay, shown)
    if not config.level0:
        sections["level0_findings"] = "(Level 0 is off in this configuration)"
    opinions: list[Opinion] = []
    for index, step in enumerate(config.tiers):
        opinion = ask_judge(judges[step.tier], prompt, sections, pair_id=pair_id, step=step)
        opinions.append(opinion)
        if index == len(config.tiers) - 1 or not escalates(opinion, step):
            break
    outcome, decided_by, confidence, reason = outcome_of(opinions)
    return JudgeResult(
        outcome=outcome,
        decided_by=decided_by,
        reason=reason,
        confidence=confidence,
        opinions=opinions,
        cost_usd=round(sum(o.cost_usd for o in opinions), 9),
        latency_ms=round((time.perf_counter() - started) * 1000, 3),
    )


def gate_pair(
    golden: Trace,
    replay: Trace,
    findings: Sequence[Finding],
    *,
    task: Task,
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    pair_id: str,
    replay_base: Callable[[], Trace] | None = None,
    search: FactSearch | None = None,
    prompt: JudgePrompt | None = None,
) -> JudgeResult:
    """Level 0, then drift (when on and a volatile fact moved), then the cascade.

    Drift comes before Level 0's hard-fail shortcut (see the comment below); everything else
    Level 0 settles (a failed replay, an identical pair) is settled first.

    A difference the moved fact does not explain is judged against the unchanged skill's
    replay on the current world, so the judges see only what the edit changed.
    """
    settled = level0_gate(findings, config)
    if settled is not None and settled.outcome in ("error", "same"):
        return settled
    if not (config.drift.enabled and replay_base is not None and search is not None):
        return settled or judge_pair(
            golden, replay, findings, task=task, config=config, judges=judges, pair_id=pair_id, prompt=prompt
        )
    # Drift runs before Level 0's hard-fail shortcut: when the unchanged skill on the moved world
    # makes the same new call, the world caused it, not the edit. When it does not, the replay is
    # diffed against that base replay, so a call the edit added is still a hard fail.
    started = time.perf_counter()
    check = drift_check(golden, replay, replay_base=replay_base, search=search)
    if check is None:
        return settled or judge_pair(
            golden, replay, findings, task=task, config=config, judges=judges, pair_id=pair_id, prompt=prompt
        )
    evidence = check.evidence
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    base_cost = check.base_replay.cost_usd if check.base_replay is not None else 0.0
    if evidence.is_drift:
        return JudgeResult(
            outcome="drift", decided_by="drift", reason=evidence.note, drift=evidence, hint=REBLESS_HINT,
            cost_usd=base_cost, latency_ms=elapsed,
        )
    if check.base_replay is not None and evidence.base_replay_ran and not evidence.base_matches_replay:
        reference = check.base_replay
        result = judge_pair(
            reference, replay, level0_findings(reference, replay),
            task=task, config=config, judges=judges, pair_id=f"{pair_id}:vs-base", prompt=prompt,
        )
        reason = f"judged against the unchanged skill on the current world: {result.reason}"
    else:
        result = judge_pair(golden, replay, findings, task=task, config=config, judges=judges, pair_id=pair_id, prompt=prompt)
        reason = result.reason
    return result.model_copy(
        update={
            "reason": reason,
            "drift": evidence,
            "cost_usd": round(result.cost_usd + base_cost, 9),
            "latency_ms": round(result.latency_ms + elapsed, 3),
        }
    )
