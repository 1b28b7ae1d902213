from __future__ import annotations

import pytest

from ratchet.config.gate import GateConfig, resolve_gate_config
from ratchet.core.errors import ConfigError, ModelCallError
from ratchet.core.fence import fence_token, read_fenced
from ratchet.gate.cascade import run_cascade
from ratchet.gate.context import CheckContext
from ratchet.gate.level0 import level0_findings
from ratchet.gate.models import PairOutcome
from ratchet.goldens.trace import Trace
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
# These tests are about escalation with both orders asked; the policy of ADR 0026 is tested in test_cascade_policy.
BOTH = both_orders_always(resolve_gate_config("cascade"))
SIDE_EFFECT = make_trace(
    "Total: 10.00 EUR\nDue: 2026-10-31",
    [("read_csv", {"path": "a.csv"}, "read"), ("send_email", {"to": "boss@example.com"}, "send")],
)


def run(
    config: GateConfig | str, replay: Trace = CHANGED, **answers: list[str | Exception]
) -> tuple[PairOutcome, dict[str, ScriptedJudge]]:
    cfg = resolve_gate_config(config) if isinstance(config, str) else config
    judges = {tier: ScriptedJudge(f"fake/{tier}", answers.get(tier, [])) for tier in ("nano", "super", "ultra")}
    return gate_fixed(GOLDEN, FixedReplays(replay), config=cfg, judges=judges), judges


def both_orders(text: str) -> list[str]:
    """The same answer for a swap-checked tier's golden-first and replay-first calls."""
    return [text, text]


def asked(judges: dict[str, ScriptedJudge]) -> list[str]:
    return [tier for tier, judge in judges.items() if judge.requests]


def test_identical_is_same_with_no_judge_and_no_cost() -> None:
    result, judges = run("cascade", replay=GOLDEN)
    assert (result.outcome, result.decided_by, result.cost_usd, asked(judges)) == ("same", "level0", 0.0, [])


@pytest.mark.parametrize("name", ["cascade", "nano_only", "super_only", "ultra_only", "drift_off", "noise"])
def test_hard_fail_is_regression_before_any_judge(name: str) -> None:
    every_pass = [answer("pass", 1.0)]
    result, judges = run(name, SIDE_EFFECT, nano=every_pass, super=every_pass, ultra=every_pass)
    assert (result.outcome, result.decided_by, asked(judges)) == ("regression", "level0", [])
    assert "send_email" in result.reason


def test_level0_off_lets_the_side_effect_reach_the_judges() -> None:
    result, judges = run(
        "level0_off", SIDE_EFFECT, nano=[answer("regression", 0.9)], super=both_orders(answer("regression", 0.85))
    )
    assert (result.outcome, result.decided_by, asked(judges)) == ("regression", "super", ["nano", "super"])
    user = judges["nano"].requests[0].messages[1].content or ""
    nonce = fence_token(judges["nano"].requests[0].messages[0].content or "")
    assert nonce is not None
    sections = read_fenced(user, nonce)
    assert sections["level0_findings"] == "(Level 0 is off in this configuration)"
    assert "+send_email" in sections["trace_diff"]


def test_nano_settles_a_confident_pass() -> None:
    result, judges = run("cascade", nano=[answer("pass", 0.9)])
    assert (result.outcome, result.decided_by, result.confidence, asked(judges)) == ("pass", "nano", 0.9, ["nano"])
    assert result.cost_usd == pytest.approx(0.001)
    assert [o.prompt_version for o in result.opinions] == ["judge-v4"]


def test_nano_same_is_a_pass() -> None:
    result, _ = run("cascade", nano=[answer("same", 0.95)])
    assert result.outcome == "pass"


def test_low_nano_confidence_escalates_to_super() -> None:
    result, judges = run(BOTH, nano=[answer("pass", 0.5)], super=both_orders(answer("pass", 0.9)))
    assert (result.outcome, result.decided_by, asked(judges)) == ("pass", "super", ["nano", "super"])
    assert result.cost_usd == pytest.approx(0.003)  # nano once, super in both orders


def test_nano_regression_always_escalates_and_super_settles_it() -> None:
    result, judges = run("cascade", nano=[answer("regression", 0.99)], super=both_orders(answer("regression", 0.9)))
    assert (result.outcome, result.decided_by, result.confidence, asked(judges)) == (
        "regression",
        "super",
        0.9,
        ["nano", "super"],
    )


def test_super_unsure_goes_to_ultra() -> None:
    result, judges = run(
        BOTH,
        nano=[answer("regression", 0.9)],
        super=both_orders(answer("unsure", 0.9)),
        ultra=both_orders(answer("pass", 0.8)),
    )
    assert (result.outcome, result.decided_by, asked(judges)) == ("pass", "ultra", ["nano", "super", "ultra"])
    assert [(o.tier, o.swapped) for o in result.opinions] == [
        ("nano", False),
        ("super", False),
        ("super", True),
        ("ultra", False),
        ("ultra", True),
    ]


def test_super_below_threshold_goes_to_ultra() -> None:
    result, _ = run(
        "cascade",
        nano=[answer("pass", 0.4)],
        super=both_orders(answer("pass", 0.6)),
        ultra=both_orders(answer("regression", 0.95)),
    )
    assert (result.outcome, result.decided_by) == ("regression", "ultra")


def test_ultra_unsure_is_the_end_of_the_line() -> None:
    result, _ = run(
        "cascade",
        nano=[answer("unsure", 0.3)],
        super=both_orders(answer("unsure", 0.3)),
        ultra=both_orders(answer("unsure", 0.4)),
    )
    assert (result.outcome, result.decided_by) == ("unsure", "ultra")


@pytest.mark.parametrize("tier", ["nano", "super", "ultra"])
def test_single_tier_configs_never_escalate(tier: str) -> None:
    calls = 1 if tier == "nano" else 2  # super and ultra judge in both orders
    result, judges = run(f"{tier}_only", **{tier: [answer("regression", 0.2)] * calls})
    assert (result.outcome, result.decided_by, asked(judges)) == ("regression", tier, [tier])
    assert len(judges[tier].requests) == len(result.opinions) == calls


def test_unparseable_answer_is_retried_once() -> None:
    result, judges = run("nano_only", nano=["I think it is fine", answer("pass", 0.9)])
    assert result.outcome == "pass" and result.opinions[0].attempts == 2
    assert result.cost_usd == pytest.approx(0.002)
    first, retry = judges["nano"].requests
    assert first != retry  # a new nonce: the retry is not answered from the cache


def test_unparseable_twice_is_a_recorded_error_and_escalates() -> None:
    result, _ = run(BOTH, nano=["nope", "still nope"], super=both_orders(answer("pass", 0.95)))
    assert [o.is_error for o in result.opinions] == [True, False, False]
    assert "unparseable after 2 attempts" in (result.opinions[0].error or "")
    assert (result.outcome, result.decided_by) == ("pass", "super")


def test_last_tier_error_fails_closed() -> None:
    result, _ = run("nano_only", nano=["x", "y"])
    assert (result.outcome, result.decided_by, result.confidence) == ("error", "error", None)
    assert len(result.opinions) == 1


def test_an_error_never_weakens_an_earlier_regression() -> None:
    boom = ModelCallError("upstream 503 after retries")
    result, _ = run("cascade", nano=[answer("regression", 0.95)], super=[boom], ultra=["garbage", "garbage"])
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "nano", 0.95)
    assert "model call failed" in (result.opinions[1].error or "")


def test_failed_replay_is_an_error_with_no_judge() -> None:
    result, judges = run("cascade", replay=make_trace("", status="error"))
    assert (result.outcome, asked(judges)) == ("error", [])


def test_missing_judge_model_is_a_config_error() -> None:
    cfg = resolve_gate_config("cascade")
    with pytest.raises(ConfigError, match="ultra"):
        run_cascade(
            GOLDEN,
            CHANGED,
            level0_findings(GOLDEN, CHANGED),
            CheckContext(config=cfg, judges={"nano": ScriptedJudge("n"), "super": ScriptedJudge("s")}),
            task=make_task(),
            pair_id="p",
        )


def test_requests_carry_the_tier_budgets() -> None:
    _, judges = run(
        "cascade",
        nano=[answer("pass", 0.1)],
        super=both_orders(answer("pass", 0.1)),
        ultra=both_orders(answer("pass", 0.9)),
    )
    assert [j.requests[0].max_tokens for j in judges.values()] == [300, 1000, 2000]


def test_level0_only_is_a_config_with_no_tiers() -> None:
    cfg = resolve_gate_config("level0_only")
    assert cfg.tiers == []
    changed, judges = run(cfg)
    assert (changed.outcome, changed.decided_by, asked(judges)) == ("unsure", "level0", [])
    assert changed.reason == "needs judging: 1 difference(s), first: final output differs"
    hard, _ = run(cfg, SIDE_EFFECT)
    assert (hard.outcome, hard.decided_by) == ("regression", "level0")
    same, _ = run(cfg, GOLDEN)
    assert same.outcome == "same"
