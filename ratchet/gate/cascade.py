"""The judge cascade: Nano screens, Super checks, Ultra adjudicates, escalating only while unsure.

One code path for every configuration: the tiers, their thresholds and what each escalates
on come from GateConfig. The outcome is computed here from each opinion's verdict and
confidence; the judges' free text is evidence for a human, never an input to the decision.
Only pairs that Level 0 and drift left open reach it (gate/pair.py holds that order), so no
judge can overrule a hard fail. A config with no tiers is Level 0 only: what differs is `unsure`.

A tier with swap_check is asked twice, the second time with the replay's output shown before
the golden's. A judge that reads position instead of labels (position bias) then contradicts
itself, and the tier says `unsure` rather than passing that bias on as a verdict. Both opinions
are kept on the pair; escalation and the outcome read the tier's combined say (`TierSay`).
With `swap: near_threshold` the second order is asked only where it can move the decision
(`swap_reason`), and a tier with `settle_regression_at` stops on a confident regression that
Level 0 also shows as a concrete difference (`concrete_difference`); docs/adr/0026.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ratchet.config.gate import TierStep
from ratchet.core.chat import ChatModel, Usage
from ratchet.core.clock import Clock, elapsed_ms, wall_clock
from ratchet.core.errors import ConfigError, InfraError
from ratchet.diff.models import SkillDiff
from ratchet.gate.context import CheckContext
from ratchet.gate.judge_prompt import (
    JudgePrompt,
    build_judge_call,
    judge_sections,
    load_judge_prompt,
)
from ratchet.gate.level0 import needs_judging
from ratchet.gate.models import Finding, JudgeResult, Opinion, Outcome
from ratchet.gate.opinion import parse_answer
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace

MAX_ATTEMPTS = 2  # one retry for an unparseable answer; call failures are retried in the gateway
# Level 0 findings that show what the replay did differently, not only what it wrote.
CONCRETE_KINDS = frozenset(
    {
        "routing_changed", "call_added", "call_removed", "args_changed", "call_moved", "new_side_effect",
        "repeated_after_lost_reply", "state_changed",
    }
)  # fmt: skip


def ask_judge(
    model: ChatModel,
    prompt: JudgePrompt,
    sections: Mapping[str, str],
    *,
    pair_id: str,
    step: TierStep,
    clock: Clock = wall_clock,
    swapped: bool = False,
) -> Opinion:
    """One tier's opinion. Unparseable twice, or a failed call: an error opinion, never dropped.

    `swapped`: asked with the replay's output shown before the golden's (the opinion says so).
    """
    opinion = Opinion(tier=step.tier, model=model.model_id, prompt_version=prompt.version, swapped=swapped)
    usage = Usage()
    started = clock()
    problem = ""
    try:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            request, nonce = build_judge_call(
                prompt,
                sections,
                pair_id=pair_id,
                tier=step.tier,
                attempt=attempt,
                max_input_tokens=step.max_input_tokens,
                max_output_tokens=step.max_output_tokens,
                swapped=swapped,
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
                if response.finish_reason == "length":
                    # Cut off: a complete object in it may be a quote, not the judge's last word.
                    raise ValueError("the answer was cut off at the token limit")
                # Only the judge's own answer, never a verdict it quotes from the fenced data.
                answer = parse_answer(response.message.content, nonce=nonce)
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


@dataclass(frozen=True)
class TierSay:
    """What one tier said about a pair: the opinion the cascade acts on, and the opinions behind it.

    Without swap_check both are the one opinion. With it, `asked` holds both orders (golden
    first, then replay first) and `opinion` combines them: the first order's opinion at the
    lower confidence when they agree, `unsure` when they do not, an error when either failed.
    """

    opinion: Opinion
    asked: tuple[Opinion, ...]
    note: str = ""  # how the two orders combined, for the reason; empty without swap_check


def _verdict_class(opinion: Opinion) -> Literal["ok", "regression"] | None:
    """regression, or ok for same/pass; None for unsure or an error (neither can agree)."""
    if opinion.verdict in ("same", "pass"):
        return "ok"
    return "regression" if opinion.verdict == "regression" else None


def _order(opinion: Opinion) -> str:
    return "replay first" if opinion.swapped else "golden first"


def _order_text(opinion: Opinion) -> str:
    if opinion.verdict is None:
        return f"{_order(opinion)}: error ({opinion.error})"
    return f"{_order(opinion)}: {opinion.verdict} at {opinion.confidence:.2f}"


def combine_orders(first: Opinion, second: Opinion) -> TierSay:
    """One tier's say from its golden-first and replay-first opinions (docstring of TierSay)."""
    asked = (first, second)
    failed = next((o for o in asked if o.verdict is None), None)
    if failed is not None:
        other = second if failed is first else first
        error = failed.model_copy(update={"error": f"{_order(failed)}: {failed.error}", "swapped": False})
        return TierSay(error, asked, note=_order_text(other))
    low = min(first.confidence, second.confidence)
    kind = _verdict_class(first)
    if kind is not None and kind == _verdict_class(second):
        return TierSay(first.model_copy(update={"confidence": low}), asked, note="both orders agree")
    unsure = first.model_copy(update={"verdict": "unsure", "confidence": low})
    if first.verdict == second.verdict == "unsure":
        return TierSay(unsure, asked, note="unsure in both orders")
    return TierSay(unsure, asked, note=f"orders disagree: {_order_text(first)}, {_order_text(second)}")


@dataclass(frozen=True)
class SwapContext:
    """Where a tier sits, for `swap: near_threshold`: whether a tier follows it, the block cut-off,
    and the decision of the nearest tier below that made one (None: none did)."""

    follows: bool
    block_confidence: float
    below: Opinion | None = None


def swap_reason(first: Opinion, step: TierStep, where: SwapContext) -> str | None:
    """Why the replay-first order is worth asking after `first`, or None when it is not (docs/adr/0026).

    A second order moves a decision only by disagreeing (the say turns unsure) or by a lower
    confidence (min of both). Near a cut-off either can; far from every cut-off only a flat
    disagreement can, and a judge that is far from its cut-offs is where that is rarest. So it is
    asked near a cut-off, or when `first` contradicts a tier below that decided (the two tiers
    then disagree, and the swap is the tie-break). An unsure first order stays unsure whatever
    the second says.
    """
    if step.swap == "always":
        return "always"
    kind = _verdict_class(first)
    if kind is None:
        return None
    cuts = ([step.threshold] if where.follows else []) + ([where.block_confidence] if kind == "regression" else [])
    near = [cut for cut in cuts if abs(first.confidence - cut) <= step.swap_margin + 1e-9]
    if near:
        return f"near {near[0]:.2f}"
    below = where.below
    if below is not None and _verdict_class(below) not in (None, kind):
        return f"contradicts {below.tier}"
    return None


def ask_tier(
    model: ChatModel,
    prompt: JudgePrompt,
    sections: Mapping[str, str],
    *,
    pair_id: str,
    step: TierStep,
    clock: Clock = wall_clock,
    where: SwapContext | None = None,
) -> TierSay:
    """One tier's say: one opinion, or with swap_check one per order, combined.

    A failed golden-first order is already the tier's error, so the second order is not paid for;
    under `swap: near_threshold` neither is one that cannot move the decision (`swap_reason`).
    """
    first = ask_judge(model, prompt, sections, pair_id=pair_id, step=step, clock=clock)
    if not step.swap_check:
        return TierSay(first, (first,))
    if first.is_error:
        error = first.model_copy(update={"error": f"golden first: {first.error}"})
        return TierSay(error, (first,), note="replay first not asked")
    if swap_reason(first, step, where or SwapContext(follows=False, block_confidence=0.0)) is None:
        return TierSay(first, (first,), note="golden first only: far from every cut-off")
    second = ask_judge(model, prompt, sections, pair_id=pair_id, step=step, clock=clock, swapped=True)
    return combine_orders(first, second)


def concrete_difference(findings: Sequence[Finding]) -> Finding | None:
    """The first Level 0 finding that shows a call, argument or routing change its golden is not known to vary."""
    return next(
        (f for f in findings if f.kind in CONCRETE_KINDS and f.severity != "info" and not f.known_to_vary), None
    )


def settles(opinion: Opinion, step: TierStep, findings: Sequence[Finding]) -> Finding | None:
    """The Level 0 finding that lets this tier settle its regression (`settle_regression_at`), or None."""
    at = step.settle_regression_at
    if at is None or opinion.verdict != "regression" or opinion.confidence < at:
        return None
    return concrete_difference(findings)


def decided(opinion: Opinion, step: TierStep) -> bool:
    """Whether a tier made a call of its own (a verdict at or above its threshold), not just deferred."""
    return _verdict_class(opinion) is not None and opinion.confidence >= step.threshold


def escalates(opinion: Opinion, step: TierStep) -> bool:
    """Whether the next tier must look: an error, a verdict this tier escalates, or low confidence."""
    if opinion.verdict is None:
        return True
    return opinion.verdict in step.escalate_on or opinion.confidence < step.threshold


def _describe(say: TierSay) -> str:
    opinion = say.opinion
    text = (
        f"{opinion.tier} error ({opinion.error})"
        if opinion.verdict is None
        else f"{opinion.tier}: {opinion.verdict} at {opinion.confidence:.2f}"
    )
    return f"{text} ({say.note})" if say.note else text


def outcome_of(said: Sequence[TierSay]) -> tuple[Outcome, str, float | None, str]:
    """(outcome, deciding tier, confidence, reason) from each tier's say, in escalation order.

    The last tier decides. If its say is an error, an earlier regression still stands (an error
    never weakens a regression); otherwise the pair is an error (fail closed).
    """
    trail = "; ".join(_describe(s) for s in said)
    opinions = [s.opinion for s in said]
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
    run: CheckContext,
    *,
    task: Task,
    pair_id: str,
    known_variation: str | None = None,
    diffs: Sequence[SkillDiff] = (),
) -> JudgeResult:
    """The tiers of `run.config` in order until one is sure enough; with no tiers, the pair is `unsure`.

    `known_variation`: what the golden's noise record says varies (shown to every tier). `diffs`: the
    behavioural diff of the skills this pair ran (judge_prompt.pair_diffs), shown to every tier as context."""
    config, judges = run.config, run.judges
    if not config.tiers:
        return JudgeResult(outcome="unsure", decided_by="level0", reason=needs_judging(list(findings)))
    missing = [s.tier for s in config.tiers if s.tier not in judges]
    if missing:
        raise ConfigError(f"gate config {config.name!r} needs judge tiers with no model: {', '.join(missing)}")
    prompt = load_judge_prompt(config.prompt_path())
    shown = findings if config.level0 else []
    sections = judge_sections(task.prompt, golden, replay, shown, known_variation, diffs, state_diff=config.state_diff)
    if not config.level0:
        sections["level0_findings"] = "(Level 0 is off in this configuration)"
    said: list[TierSay] = []
    below: Opinion | None = None
    for index, step in enumerate(config.tiers):
        where = SwapContext(index < len(config.tiers) - 1, config.block_confidence, below)
        say = ask_tier(judges[step.tier], prompt, sections, pair_id=pair_id, step=step, clock=run.clock, where=where)
        settled = settles(say.opinion, step, findings) if config.level0 and where.follows else None
        if settled is not None:
            note = f"settled: Level 0 shows {settled.kind}"
            say = replace(say, note=f"{say.note}; {note}" if say.note else note)
        said.append(say)
        if not where.follows or settled is not None or not escalates(say.opinion, step):
            break
        below = say.opinion if decided(say.opinion, step) else below
    outcome, decided_by, confidence, reason = outcome_of(said)
    return JudgeResult(
        outcome=outcome,
        decided_by=decided_by,
        reason=reason,
        confidence=confidence,
        opinions=[opinion for say in said for opinion in say.asked],
    )
