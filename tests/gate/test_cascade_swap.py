"""Swapped-order judging: Super and Ultra judge golden-first and replay-first; a disagreement is unsure."""

from __future__ import annotations

import json

import pytest

from ratchet.config.gate import GateConfig, resolve_gate_config
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, Message, Usage, approx_tokens
from ratchet.core.errors import ModelCallError
from ratchet.core.fence import fence_token, read_fenced
from ratchet.gate.judge_prompt import build_judge_request, judge_sections, load_judge_prompt, swapped_sections
from ratchet.gate.level0 import level0_findings
from ratchet.gate.models import PairOutcome
from ratchet.goldens.trace import Trace
from ratchet.llm.cache import cache_key
from ratchet.sim.judges import SimJudge
from tests.gate.judge_fakes import (
    FixedReplays,
    ScriptedJudge,
    answer,
    both_orders_always,
    gate_fixed,
    make_task,
    make_trace,
)

GOLDEN = make_trace("Total: 10.00 EUR\nDue: 2026-10-31", [("read_csv", {"path": "a.csv"}, "read")])
CHANGED = make_trace("Total: 12.00 EUR\nDue: 2026-10-31", [("read_csv", {"path": "a.csv"}, "read")])
REWORDED = make_trace("Total: 10.00 EUR\nDue: 2026-10-31\nAll done.", [("read_csv", {"path": "a.csv"}, "read")])
SIDE_EFFECT = make_trace(
    "Total: 10.00 EUR\nDue: 2026-10-31",
    [("read_csv", {"path": "a.csv"}, "read"), ("send_email", {"to": "boss@example.com"}, "send")],
)
OUTPUTS = ("golden_output", "replay_output")
# Both orders on every swap-checked tier (ADR 0026's policy off): these tests are about the two orders themselves.
BOTH = both_orders_always(resolve_gate_config("cascade"))


def fenced(request: ChatRequest) -> dict[str, str]:
    """The sections a judge reads: fenced with the nonce its system message declares, in message order."""
    nonce = fence_token(request.messages[0].content or "")
    assert nonce is not None
    return read_fenced(request.messages[1].content or "", nonce)


def first_output(request: ChatRequest) -> str:
    return next(name for name in fenced(request) if name in OUTPUTS)


class PositionBiasedJudge:
    """Prefers whatever it reads second: regression when the golden's output comes first, pass otherwise.

    It reads the fenced sections like a real judge would, but decides by position, not by label.
    """

    def __init__(self, model_id: str, *, confidence: float = 0.9, cost: float = 0.001) -> None:
        self._model_id = model_id
        self.confidence = confidence
        self.cost = cost
        self.requests: list[ChatRequest] = []

    @property
    def model_id(self) -> str:
        return self._model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        verdict = "regression" if first_output(request) == "golden_output" else "pass"
        content = answer(verdict, self.confidence, f"{verdict} by position")
        prompt = "\n".join(m.content or "" for m in request.messages)
        return ChatResponse(
            message=Message(role="assistant", content=content),
            model=self._model_id,
            usage=Usage(tokens_in=approx_tokens(prompt), tokens_out=approx_tokens(content), usd=self.cost),
        )


class LabelReadingJudge(PositionBiasedJudge):
    """Unbiased: compares the sections by their names, so the order they come in changes nothing."""

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        sections = fenced(request)
        verdict = "pass" if sections["golden_output"] == sections["replay_output"] else "regression"
        content = answer(verdict, self.confidence)
        return ChatResponse(
            message=Message(role="assistant", content=content), model=self._model_id, usage=Usage(usd=self.cost)
        )


def gate(config: GateConfig | str, judges: dict[str, ChatModel], replay: Trace = CHANGED) -> PairOutcome:
    cfg = resolve_gate_config(config) if isinstance(config, str) else config
    return gate_fixed(GOLDEN, FixedReplays(replay), config=cfg, judges=judges)


def test_packaged_configs_swap_check_super_and_ultra_only() -> None:
    for name in ("cascade", "drift_off", "level0_off", "noise", "nano_only", "super_only", "ultra_only"):
        steps = resolve_gate_config(name).tiers
        assert [(s.tier, s.swap_check) for s in steps] == [(s.tier, s.tier != "nano") for s in steps], name


def test_a_position_biased_super_is_unsure_and_escalates_to_ultra() -> None:
    biased = PositionBiasedJudge("fake/super")
    judges: dict[str, ChatModel] = {
        "nano": ScriptedJudge("fake/nano", [answer("pass", 0.5)]),
        "super": biased,
        "ultra": ScriptedJudge("fake/ultra", [answer("regression", 0.95), answer("regression", 0.9)]),
    }
    result = gate(BOTH, judges)
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "ultra", 0.9)
    assert result.reason == (
        "nano: pass at 0.50; "
        "super: unsure at 0.90 (orders disagree: golden first: regression at 0.90, replay first: pass at 0.90); "
        "ultra: regression at 0.90 (both orders agree)"
    )
    assert [first_output(r) for r in biased.requests] == ["golden_output", "replay_output"]


def test_a_position_biased_last_tier_leaves_the_pair_unsure() -> None:
    result = gate("super_only", {"super": PositionBiasedJudge("fake/super", confidence=0.8)})
    assert (result.outcome, result.decided_by, result.confidence) == ("unsure", "super", 0.8)
    assert (
        result.reason == "super: unsure at 0.80 (orders disagree: golden first: regression at 0.80, "
        "replay first: pass at 0.80)"
    )


def test_both_opinions_are_recorded_and_the_swapped_one_is_flagged() -> None:
    result = gate("super_only", {"super": PositionBiasedJudge("fake/super")})
    assert [(o.tier, o.swapped, o.verdict, o.rationale) for o in result.opinions] == [
        ("super", False, "regression", "regression by position"),
        ("super", True, "pass", "pass by position"),
    ]


def test_an_unbiased_judge_agrees_and_decides_at_the_lower_confidence() -> None:
    scripted = ScriptedJudge("fake/super", [answer("regression", 0.9), answer("regression", 0.75)])
    result = gate("super_only", {"super": scripted})
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "super", 0.75)
    assert result.reason == "super: regression at 0.75 (both orders agree)"
    labels = gate("super_only", {"super": LabelReadingJudge("fake/super")})
    assert (labels.outcome, labels.reason) == ("regression", "super: regression at 0.90 (both orders agree)")


def test_same_and_pass_agree_but_unsure_in_both_orders_does_not() -> None:
    agreed = gate("super_only", {"super": ScriptedJudge("s", [answer("same", 0.9), answer("pass", 0.8)])})
    assert (agreed.outcome, agreed.confidence) == ("pass", 0.8)
    doubtful = gate("super_only", {"super": ScriptedJudge("s", [answer("unsure", 0.9), answer("unsure", 0.9)])})
    assert doubtful.outcome == "unsure"
    assert "unsure in both orders" in doubtful.reason


def test_the_cost_counts_both_calls() -> None:
    result = gate("super_only", {"super": PositionBiasedJudge("fake/super", cost=0.001)})
    assert result.cost_usd == pytest.approx(0.002)
    assert [o.cost_usd for o in result.opinions] == [0.001, 0.001]


def test_an_agreement_above_threshold_does_not_escalate() -> None:
    ultra = ScriptedJudge("fake/ultra")
    judges: dict[str, ChatModel] = {
        "nano": ScriptedJudge("fake/nano", [answer("regression", 0.9)]),
        "super": LabelReadingJudge("fake/super", confidence=0.85),
        "ultra": ultra,
    }
    result = gate(BOTH, judges)
    assert (result.outcome, result.decided_by, ultra.requests) == ("regression", "super", [])
    assert result.cost_usd == pytest.approx(0.003)


@pytest.mark.parametrize("name", ["cascade", "super_only", "ultra_only", "level0_only"])
def test_a_hard_fail_never_reaches_the_judges(name: str) -> None:
    judges = {tier: PositionBiasedJudge(f"fake/{tier}") for tier in ("nano", "super", "ultra")}
    result = gate(name, dict(judges), replay=SIDE_EFFECT)
    assert (result.outcome, result.decided_by, result.opinions) == ("regression", "level0", [])
    assert [j.requests for j in judges.values()] == [[], [], []]


def test_an_error_in_the_swapped_order_fails_closed() -> None:
    boom = ModelCallError("upstream 503 after retries")
    result = gate("super_only", {"super": ScriptedJudge("s", [answer("pass", 0.95), boom])})
    assert (result.outcome, result.decided_by, result.confidence) == ("error", "error", None)
    assert result.reason == (
        "no judge could decide: super error (replay first: model call failed: upstream 503 "
        "after retries) (golden first: pass at 0.95)"
    )
    assert [(o.swapped, o.is_error) for o in result.opinions] == [(False, False), (True, True)]


def test_an_error_in_the_first_order_is_not_asked_again_and_an_earlier_regression_stands() -> None:
    boom = ModelCallError("upstream 503 after retries")
    judges: dict[str, ChatModel] = {
        "nano": ScriptedJudge("n", [answer("regression", 0.95)]),
        "super": ScriptedJudge("s", [boom]),
        "ultra": ScriptedJudge("u", [answer("regression", 0.9), "garbage", "garbage"]),
    }
    result = gate(BOTH, judges)
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "nano", 0.95)
    assert (
        "super error (golden first: model call failed: upstream 503 after retries) (replay first not asked)"
        in result.reason
    )
    assert result.reason.endswith("(the nano regression stands)")
    assert [(o.tier, o.swapped, o.is_error) for o in result.opinions] == [
        ("nano", False, False),
        ("super", False, True),
        ("ultra", False, False),
        ("ultra", True, True),
    ]


def test_the_swapped_request_moves_only_the_outputs_and_has_its_own_nonce_and_cache_key() -> None:
    prompt = load_judge_prompt(resolve_gate_config("cascade").prompt_path())
    sections = judge_sections(make_task().prompt, GOLDEN, CHANGED, level0_findings(GOLDEN, CHANGED))
    requests = [
        build_judge_request(
            prompt,
            sections,
            pair_id="e1/t1",
            tier="super",
            attempt=1,
            max_input_tokens=12000,
            max_output_tokens=1000,
            swapped=swapped,
        )
        for swapped in (False, True)
    ]
    plain, swapped = (fenced(r) for r in requests)
    assert list(plain) == ["task", "golden_output", "replay_output", "level0_findings", "trace_diff"]
    assert list(swapped) == ["task", "replay_output", "golden_output", "level0_findings", "trace_diff"]
    assert plain == swapped  # same names, same text (the trace diff still reads golden -> replay)
    nonces = [fence_token(r.messages[0].content or "") for r in requests]
    assert nonces[0] != nonces[1]
    assert cache_key("fake/super", None, requests[0]) != cache_key("fake/super", None, requests[1])


def test_a_truncated_pair_shows_the_same_text_in_both_orders() -> None:
    prompt = load_judge_prompt(resolve_gate_config("cascade").prompt_path())
    long = "Line: " + "x" * 6000
    sections = {
        "task": "t",
        "golden_output": long,
        "replay_output": long + "y",
        "level0_findings": "(none)",
        "trace_diff": "(tool calls identical)",
    }
    plain, swapped = (
        fenced(
            build_judge_request(
                prompt,
                sections,
                pair_id="p",
                tier="super",
                attempt=1,
                max_input_tokens=1000,
                max_output_tokens=100,
                swapped=s,
            )
        )
        for s in (False, True)
    )
    assert "[truncated" in plain["golden_output"]
    assert plain == swapped


def test_swapped_sections_keeps_every_other_section_in_place() -> None:
    sections = {"task": "t", "golden_output": "g", "extra": "e", "replay_output": "r", "trace_diff": "d"}
    assert list(swapped_sections(sections).items()) == [
        ("task", "t"),
        ("replay_output", "r"),
        ("extra", "e"),
        ("golden_output", "g"),
        ("trace_diff", "d"),
    ]


@pytest.mark.parametrize("replay", [CHANGED, REWORDED], ids=["changed", "reworded"])
def test_the_sim_judges_agree_in_both_orders(replay: Trace) -> None:
    judges: dict[str, ChatModel] = {tier: SimJudge(tier) for tier in ("nano", "super", "ultra")}
    result = gate("super_only", judges, replay=replay)
    first, second = result.opinions
    assert (first.swapped, second.swapped) == (False, True)
    assert (first.verdict, first.confidence) == (second.verdict, second.confidence)
    assert "both orders agree" in result.reason or first.verdict == "unsure"
    prompt = load_judge_prompt(resolve_gate_config("cascade").prompt_path())
    sections = judge_sections(make_task().prompt, GOLDEN, replay, level0_findings(GOLDEN, replay))
    for tier in ("super", "ultra"):
        asked = [
            json.loads(
                SimJudge(tier)
                .complete(
                    build_judge_request(
                        prompt,
                        sections,
                        pair_id="e1/t1",
                        tier=tier,
                        attempt=1,
                        max_input_tokens=12000,
                        max_output_tokens=1000,
                        swapped=s,
                    )
                )
                .message.content
                or ""
            )
            for s in (False, True)
        ]
        assert asked[0] == asked[1]
