"""The judge cascade: Nano screens, Super checks, Ultra adjudicates, escalating only while unsure.

One code path for every configuration: the tiers, their thresholds and what each escalates
on come from GateConfig. The outcome is computed here from each opinion's verdict and
confidence; the judges' free text is evidence for a human, never an input to the decision.
Only pairs that Level 0 and drift left open reach it (gate/pair.py holds that order), so no
judge can overrule a hard fail. A config with no tiers is Level 0 only: what differs is `unsure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.clock import Clock, elapsed_ms, wall_clock
from ratchet.errors import ConfigError, InfraError
from ratchet.gate.gate_config import GateConfig, TierStep
from ratchet.gate.judge_prompt import (
    JudgePrompt,
    build_judge_request,
    judge_sections,
    load_judge_prompt,
)
from ratchet.gate.level0 import needs_judging
from ratchet.gate.models import Finding, JudgeResult, Opinion, Outcome
from ratchet.gate.opinion import parse_answer
from ratchet.llm.types import ChatModel, Usage
from ratchet.tasks import Task
from ratchet.trace import Trace

MAX_ATTEMPTS = 2  # one retry for an unparseable answer; call failures are retried in the gateway


def ask_judge(
    model: ChatModel,
    prompt: JudgePrompt,
    sections: Mapping[str, str],
    *,
    pair_id: str,
    step: TierStep,
    clock: Clock = wall_clock,
) -> Opinion:
    """One tier's opinion. Unparseable twice, or a failed call: an error opinion, never dropped."""
    opinion = Opinion(tier=step.tier, model=model.model_id, prompt_version=prompt.version)
    usage = Usage()
    started = clock()
    problem = ""
    try:
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
            usage = usage + response.usage
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
    finally:
        opinion.tokens_in, opinion.tokens_out = usage.tokens_in, usage.tokens_out
        opinion.tokens_cached, opinion.cost_usd = usage.tokens_cached, usage.usd
        opinion.latency_ms = elapsed_ms(clock, started)


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


def run_cascade(
    golden: Trace,
    replay: Trace,
    findings: Sequence[Finding],
    *,
    task: Task,
    config: GateConfig,
    judges: Mapping[str, ChatModel],
    pair_id: str,
    prompt: JudgePrompt | None = None,
    clock: Clock = wall_clock,
) -> JudgeResult:
    """The tiers in order until one is sure enough; with no tiers, the pair is `unsure`."""
    if not config.tiers:
        return JudgeResult(outcome="unsure", decided_by="level0", reason=needs_judging(list(findings)))
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
        opinion = ask_judge(judges[step.tier], prompt, sections, pair_id=pair_id, step=step, clock=clock)
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
    )
