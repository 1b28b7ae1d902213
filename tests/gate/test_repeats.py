"""Repeats: a pair is replayed again only when that can change the decision, and blocks only on the exact test."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ratchet.config.gate import GateConfig, TierStep
from ratchet.core.chat import ChatRequest, ChatResponse, Message, Usage
from ratchet.core.errors import BudgetError
from ratchet.gate.context import CheckContext
from ratchet.gate.decide import decide_edit
from ratchet.gate.models import PairOutcome, Selected
from ratchet.gate.repeats import gate_repeated, repeat_seed
from ratchet.gate.variation import LINE_ADDED, variation_parts
from ratchet.goldens.noise import NoiseRecord, golden_hash
from ratchet.goldens.trace import Trace
from ratchet.stats.binomial import plan_test
from tests.gate.judge_fakes import answer, make_task, make_trace

GOLDEN = make_trace("total: 42 EUR\nitems: 3", [("read_expenses", {"month": "10"}, "read")])
ASIDE = GOLDEN.model_copy(update={"final_output": GOLDEN.final_output + "\nTell me if you want any part redone."})
WRONG = GOLDEN.model_copy(update={"final_output": "total: 41 EUR\nitems: 3"})
SENDS = make_trace(
    GOLDEN.final_output,
    [("read_expenses", {"month": "10"}, "read"), ("send_email", {"to": "boss@example.com"}, "send")],
)


def record(varying: dict[str, int], differed: int = 6, repeats: int = 30) -> NoiseRecord:
    return NoiseRecord(
        task_id="t1",
        golden_hash=golden_hash(GOLDEN),
        agent="fake/agent",
        simulated=True,
        repeats=repeats,
        differed=differed,
        varying=varying,
    )


class Replays:
    """Replays by run number: `pick(run, seed)` gives the trace; records the items it was asked for."""

    def __init__(self, pick: Callable[[int, int], Trace]) -> None:
        self.pick = pick
        self.asked: list[Selected] = []

    def replay(self, item: Selected) -> Trace:
        self.asked.append(item)
        return self.pick(item.run, item.golden.seed)

    def replay_base(self, item: Selected) -> Trace:
        raise AssertionError("no base replay expected")


class DiffJudge:
    """Says regression (at `confidence`) whenever the outputs differ, same otherwise; counts its calls."""

    def __init__(self, confidence: float = 0.95) -> None:
        self.confidence = confidence
        self.calls = 0

    @property
    def model_id(self) -> str:
        return "fake/judge"

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.calls += 1
        text = request.messages[-1].content or ""
        verdict = "regression" if "Tell me" in text or "41 EUR" in text else "same"
        return ChatResponse(
            message=Message(role="assistant", content=answer(verdict, self.confidence)),
            usage=Usage(usd=0.001),
            model="fake/judge",
        )


def config(max_replays: int = 5) -> GateConfig:
    return GateConfig(
        name="t", tiers=[TierStep(tier="ultra", threshold=0.0)], max_replays=max_replays, drift={"enabled": False}
    )  # type: ignore[arg-type]


def gate(
    replays: Replays, noise: NoiseRecord | None, judge: DiffJudge | None = None, cfg: GateConfig | None = None
) -> PairOutcome:
    item = Selected(task=make_task(), golden=GOLDEN, because="routed")
    return gate_repeated(item, replays, context(noise, judge, cfg))


def context(noise: NoiseRecord | None, judge: DiffJudge | None = None, cfg: GateConfig | None = None) -> CheckContext:
    """The check's context of one pair: its golden's noise record, if any, and the ultra judge."""
    records = {make_task().id: noise} if noise is not None else {}
    return CheckContext(config=cfg or config(), judges={"ultra": judge or DiffJudge()}, noise=records)


def test_the_parts_of_an_added_line_and_a_changed_value() -> None:
    assert variation_parts(GOLDEN, ASIDE) == [LINE_ADDED]
    assert variation_parts(GOLDEN, WRONG) == ["line: total: 42 EUR"]
    assert variation_parts(GOLDEN, SENDS) == ["call added: send_email"]
    assert variation_parts(GOLDEN, GOLDEN) == []


def test_a_difference_only_where_the_golden_varies_is_not_blocked_on_one_replay() -> None:
    """The noise record saw lines added; the first replay adds one, the repeats come back as the golden."""
    replays = Replays(lambda run, seed: ASIDE if run == 0 else GOLDEN)
    pair = gate(replays, record({LINE_ADDED: 6}))
    assert pair.outcome == "inconclusive" and pair.decided_by == "repeats"
    assert pair.repeats is not None and pair.repeats.trigger == "known-variation"
    # the first replay raised the question and is not counted; none of the repeats regressed
    assert pair.repeats.regressions == 0 and pair.repeats.outcomes[0] == "regression"
    assert set(pair.repeats.outcomes[1:]) == {"same"}
    assert 1 < pair.repeats.replays <= 5  # stopped once blocking could no longer be reached
    assert "of 30" in pair.reason and "p = " in pair.reason
    assert decide_edit([pair])[0] == "WARN"
    assert [item.run for item in replays.asked] == list(range(pair.repeats.replays))


def test_without_the_record_the_same_replay_blocks_at_once() -> None:
    replays = Replays(lambda run, seed: ASIDE)
    pair = gate(replays, None)
    assert pair.outcome == "regression" and pair.repeats is None and len(replays.asked) == 1
    assert decide_edit([pair])[0] == "BLOCK"


def test_a_regression_every_replay_blocks_once_the_test_rejects() -> None:
    replays = Replays(lambda run, seed: ASIDE)
    noise = record({LINE_ADDED: 6})
    pair = gate(replays, noise)
    needed = plan_test(flips=6, repeats=30, max_replays=4, alpha=0.05).needed  # 4 repeats after the first
    assert needed is not None
    assert pair.outcome == "regression" and pair.decided_by == "repeats" and pair.confidence is None
    assert pair.repeats is not None and pair.repeats.regressions == needed and pair.repeats.replays == needed + 1
    assert pair.repeats.p_value <= 0.05 and decide_edit([pair])[0] == "BLOCK"
    assert len({item.golden.seed for item in replays.asked}) == needed + 1  # each repeat its own seed
    assert [o.run for o in pair.opinions] == list(range(needed + 1))  # every replay's opinion, its cost included
    assert pair.cost_usd == pytest.approx(0.001 * (needed + 1))


def test_a_new_side_effect_blocks_on_the_first_replay_whatever_the_noise() -> None:
    replays = Replays(lambda run, seed: SENDS)
    judge = DiffJudge()
    pair = gate(replays, record({"call added: send_email": 10, LINE_ADDED: 6}, differed=12), judge)
    assert pair.outcome == "regression" and pair.decided_by == "level0" and pair.repeats is None
    assert len(replays.asked) == 1 and judge.calls == 0
    assert decide_edit([pair])[0] == "BLOCK"


def test_a_difference_outside_the_known_variation_decides_on_one_replay() -> None:
    replays = Replays(lambda run, seed: WRONG)
    pair = gate(replays, record({LINE_ADDED: 6}))
    assert pair.outcome == "regression" and pair.repeats is None and len(replays.asked) == 1


def test_unsure_judges_on_a_golden_known_to_vary_replay_again() -> None:
    replays = Replays(lambda run, seed: WRONG if run == 0 else GOLDEN)
    pair = gate(replays, record({LINE_ADDED: 6}), DiffJudge(confidence=0.5))
    assert pair.repeats is not None and pair.repeats.trigger == "unsure-judges"
    assert pair.outcome == "inconclusive"


def test_a_golden_that_never_varied_is_never_repeated() -> None:
    replays = Replays(lambda run, seed: ASIDE)
    pair = gate(replays, record({}, differed=0))
    assert pair.outcome == "regression" and pair.repeats is None and len(replays.asked) == 1


def test_max_replays_one_switches_repeats_off() -> None:
    replays = Replays(lambda run, seed: ASIDE)
    pair = gate(replays, record({LINE_ADDED: 6}), cfg=config(max_replays=1))
    assert pair.repeats is None and len(replays.asked) == 1


def test_the_spend_cap_stops_the_repeats_and_the_pair_is_inconclusive() -> None:
    def pick(run: int, seed: int) -> Trace:
        if run >= 2:
            raise BudgetError("cap reached")
        return ASIDE

    pair = gate(Replays(pick), record({LINE_ADDED: 6}))
    assert pair.outcome == "inconclusive" and pair.repeats is not None and pair.repeats.budget_stopped
    assert pair.repeats.replays == 2 and "spend cap" in pair.reason


def test_repeat_seeds_come_from_ids() -> None:
    assert repeat_seed("t1", 7, 1) == repeat_seed("t1", 7, 1) != repeat_seed("t1", 7, 2)
    assert repeat_seed("t1", 7, 1) != repeat_seed("t1", 8, 1)


def test_the_judges_are_told_where_the_golden_varies() -> None:
    seen: list[str] = []

    class Reading(DiffJudge):
        def complete(self, request: ChatRequest) -> ChatResponse:
            seen.append(request.messages[-1].content or "")
            return super().complete(request)

    gate(Replays(lambda run, seed: ASIDE if run == 0 else GOLDEN), record({LINE_ADDED: 6}), Reading())
    assert "known_variation" in seen[0] and "line added (6)" in seen[0]
    assert "Every difference in this replay is in a part known to vary." in seen[0]
    gate(Replays(lambda run, seed: ASIDE), None, Reading())
    assert "known_variation" not in seen[-1]


def test_level0_marks_the_findings_the_record_saw_vary_and_never_a_hard_fail() -> None:
    item = Selected(task=make_task(), golden=GOLDEN, because="routed")
    aside = gate_repeated(
        item, Replays(lambda run, seed: ASIDE if run == 0 else GOLDEN), context(record({LINE_ADDED: 6}))
    )
    assert [(f.kind, f.known_to_vary) for f in aside.findings] == [("output_changed", True)]
    sends = gate_repeated(item, Replays(lambda run, seed: SENDS), context(record({"call added: send_email": 9})))
    assert [(f.kind, f.known_to_vary) for f in sends.findings] == [("new_side_effect", False)]
    wrong = gate_repeated(item, Replays(lambda run, seed: WRONG), context(record({LINE_ADDED: 6})))
    assert [f.known_to_vary for f in wrong.findings] == [False]


def test_a_repeat_that_fails_leaves_the_pair_an_error_not_a_warn() -> None:
    broken = GOLDEN.model_copy(update={"status": "error", "error": "upstream down", "final_output": ""})
    pair = gate(Replays(lambda run, seed: ASIDE if run == 0 else broken), record({LINE_ADDED: 6}))
    assert pair.outcome == "error" and pair.decided_by == "repeats" and pair.error == "upstream down"
    assert pair.repeats is not None and "could not be checked" in pair.reason
    assert decide_edit([pair], on_error="block")[0] == "BLOCK"
