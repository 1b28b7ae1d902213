"""Repeats: replay a pair again only when that can change the decision, and BLOCK only on evidence.

One replay decides, as before, unless the pair's golden is known to vary (its noise record,
ratchet.goldens.noise, saw it or another golden of its skill vary) and either
- every difference this replay has is in a part seen to vary (`known-variation`), or
- the judges were not confident: `unsure`, or a regression below block confidence (`unsure-judges`).
Then the pair is replayed again (each repeat with a seed from its task id and number), each
replay through the whole pair pipeline, until the curtailed exact test is settled
(ratchet.stats.binomial): BLOCK when the repeats' regressions beat the golden's own flip rate
at `repeat_alpha`, else `inconclusive` (WARN) with the numbers. The first replay raised the
question and is kept as evidence, but the test counts only the repeats after it: given that a
pair is repeated, an unchanged skill then blocks with chance at most alpha. What a replay alone settles is
never repeated: a hard fail (a new side-effecting call) blocks on the first replay whatever
the noise, and `same`, `pass`, `drift` and `error` stand. A repeat that fails makes the pair an
`error` unless it already blocked (fail closed). Repeats stop at the spend cap
(the pair is then inconclusive unless it already blocked).
"""

from __future__ import annotations

from ratchet.config.gate import GateConfig
from ratchet.core.errors import BudgetError
from ratchet.core.ids import derived_seed
from ratchet.gate.context import CheckContext
from ratchet.gate.models import Outcome, PairOutcome, RepeatEvidence, Selected
from ratchet.gate.pair import ReplaySource, gate_pair
from ratchet.gate.variation import variation_parts
from ratchet.goldens.noise import NoiseRecord
from ratchet.goldens.trace import Trace
from ratchet.stats.binomial import CurtailedTest, plan_test

JUDGE_DECIDERS = frozenset({"level0", "drift", "error", "repeats"})


class _Watched:
    """A replay source that remembers the last replay it handed out (the pair's own, for its parts)."""

    def __init__(self, source: ReplaySource) -> None:
        self.source = source
        self.last: Trace | None = None

    def replay(self, item: Selected) -> Trace:
        self.last = self.source.replay(item)
        return self.last

    def replay_base(self, item: Selected) -> Trace:
        return self.source.replay_base(item)


def repeat_seed(task_id: str, first_seed: int, run: int) -> int:
    """The seed of a pair's `run`-th repeat: from the task id, the first replay's seed and the run number."""
    return derived_seed("repeat", task_id, first_seed, run)


def _trigger(
    first: PairOutcome, replay: Trace | None, item: Selected, record: NoiseRecord | None, config: GateConfig
) -> str | None:
    """Why this pair is replayed again, or None when one replay decides."""
    if record is None or not record.known_to_vary or config.max_replays < 2 or replay is None:
        return None
    if first.outcome not in ("regression", "unsure") or first.decided_by in JUDGE_DECIDERS:
        return None  # Level 0 (a hard fail), drift or an error settled it; or no judge ran (Level 0 only)
    if record.covers(variation_parts(item.golden, replay)):
        return "known-variation"
    doubtful = first.outcome == "unsure" or (
        first.confidence is not None and first.confidence < config.block_confidence
    )
    return "unsure-judges" if doubtful else None


def gate_repeated(
    item: Selected, source: ReplaySource, run: CheckContext, *, pair_id: str | None = None
) -> PairOutcome:
    """The pair through gate_pair once, and again while the test says more replays can change the decision.

    The first replay is gated with `run.record_base` (gate_pair); the golden's noise record is `run.noise`'s."""
    watched = _Watched(source)
    pair_id = pair_id or item.task.id
    record, config = run.noise.get(item.task.id), run.config
    first = gate_pair(item, watched, run, pair_id=pair_id, record_base=run.record_base)
    trigger = _trigger(first, watched.last, item, record, config)
    if trigger is None or record is None:
        return first
    # The first replay raised the question, so it is not evidence for the answer: counting it would bias
    # the test towards BLOCK. The test counts the repeats only, at most max_replays - 1 of them.
    test = plan_test(
        flips=record.differed, repeats=record.repeats, max_replays=config.max_replays - 1, alpha=config.repeat_alpha
    )
    outcomes: list[PairOutcome] = [first]
    stopped = False
    while not test.settled(_regressions(outcomes[1:]), len(outcomes) - 1):
        again = len(outcomes)
        repeat = item.model_copy(
            update={
                "run": again,
                "golden": item.golden.model_copy(update={"seed": repeat_seed(item.task.id, item.golden.seed, again)}),
            }
        )
        try:
            outcomes.append(gate_pair(repeat, source, run, pair_id=f"{pair_id}#{again}"))
        except BudgetError:
            stopped = True
            break
    return _combined(first, outcomes, test, trigger, stopped)


def _regressions(outcomes: list[PairOutcome]) -> int:
    return sum(1 for o in outcomes if o.outcome == "regression")


def _combined(
    first: PairOutcome, outcomes: list[PairOutcome], test: CurtailedTest, trigger: str, stopped: bool
) -> PairOutcome:
    regressions = _regressions(outcomes[1:])
    evidence = RepeatEvidence(
        trigger="known-variation" if trigger == "known-variation" else "unsure-judges",
        replays=len(outcomes),
        regressions=regressions,
        outcomes=[o.outcome for o in outcomes],
        flips=test.flips,
        repeats=test.repeats,
        max_repeats=test.max_replays,
        needed=test.needed,
        alpha=test.alpha,
        p_value=round(test.p_value(regressions), 6),
        budget_stopped=stopped,
    )
    why = (
        "every difference is where this golden is known to vary"
        if trigger == "known-variation"
        else "the judges were not confident and this golden is known to vary"
    )
    numbers = (
        f"{regressions} of {len(outcomes) - 1} repeats judged regressions (after a first replay that was "
        f"{first.outcome}) against the golden's own {test.flips} of {test.repeats} "
        f"(Fisher exact, one-sided, p = {evidence.p_value:.4f}"
    )
    failed = [o for o in outcomes[1:] if o.outcome == "error"]
    outcome: Outcome
    if test.blocks(regressions):
        outcome = "regression"
        reason = f"{numbers} <= {test.alpha}); {why}"
    else:
        outcome = "inconclusive"
        need = (
            f"{test.needed} of {test.max_replays} needed to block"
            if test.needed is not None
            else f"no count of {test.max_replays} repeats can beat this flip rate at {test.alpha}"
        )
        stop = "; the spend cap stopped the repeats" if stopped else ""
        reason = f"{numbers}; {need}){stop}; {why}"
        if failed:  # fail closed: a repeat that could not be checked leaves the pair an error, not a WARN
            outcome = "error"
            reason = f"{len(failed)} repeat(s) could not be checked, first: {failed[0].reason}; {reason}"
    opinions = [opinion.model_copy(update={"run": run}) for run, o in enumerate(outcomes) for opinion in o.opinions]
    return first.model_copy(
        update={
            "outcome": outcome,
            "decided_by": "repeats",
            "reason": reason,
            "opinions": opinions,
            "confidence": None if outcome == "regression" else first.confidence,
            "error": failed[0].error if outcome == "error" else first.error,
            "cost_usd": sum(o.cost_usd for o in outcomes),
            "latency_ms": sum(o.latency_ms for o in outcomes),
            "repeats": evidence,
        }
    )
