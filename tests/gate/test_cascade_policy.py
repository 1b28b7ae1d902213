"""The cascade policy (docs/adr/0026): the replay-first order only where it can move the decision,
and Nano settling a confident regression that Level 0 shows as a concrete difference."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from ratchet.config.gate import GateConfig, parse_gate_config, resolve_gate_config
from ratchet.core.chat import ChatModel
from ratchet.core.errors import ConfigError
from ratchet.gate.models import PairOutcome
from ratchet.goldens.trace import Trace
from tests.gate.judge_fakes import FixedReplays, ScriptedJudge, answer, gate_fixed, make_trace

CALLS = [("read_csv", {"path": "a.csv"}, "read")]
GOLDEN = make_trace("Total: 10.00 EUR", CALLS)
OUTPUT_ONLY = make_trace("Total: 12.00 EUR", CALLS)  # Level 0: output_changed only
ARGS_CHANGED = make_trace("Total: 12.00 EUR", [("read_csv", {"path": "b.csv"}, "read")])  # args_changed


def judges(nano: list[str], super_: list[str], ultra: Sequence[str] = ()) -> dict[str, ScriptedJudge]:
    return {
        "nano": ScriptedJudge("fake/nano", nano),
        "super": ScriptedJudge("fake/super", super_),
        "ultra": ScriptedJudge("fake/ultra", list(ultra)),
    }


def gate(models: dict[str, ScriptedJudge], replay: Trace = OUTPUT_ONLY, config: str = "cascade") -> PairOutcome:
    chat: dict[str, ChatModel] = dict(models)
    return gate_fixed(GOLDEN, FixedReplays(replay), config=resolve_gate_config(config), judges=chat)


def asked(models: dict[str, ScriptedJudge]) -> dict[str, int]:
    return {tier: len(j.requests) for tier, j in models.items()}


def test_a_first_answer_near_the_threshold_is_asked_in_the_other_order() -> None:
    models = judges([answer("regression", 0.6)], [answer("regression", 0.75), answer("regression", 0.74)])
    result = gate(models)
    assert asked(models) == {"nano": 1, "super": 2, "ultra": 0}
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "super", 0.74)
    assert result.reason == "nano: regression at 0.60; super: regression at 0.74 (both orders agree)"


def test_a_first_answer_far_from_every_cut_off_is_asked_once() -> None:
    models = judges([answer("regression", 0.6)], [answer("regression", 0.95)])
    result = gate(models)
    assert asked(models) == {"nano": 1, "super": 1, "ultra": 0}
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "super", 0.95)
    assert result.reason == (
        "nano: regression at 0.60; super: regression at 0.95 (golden first only: far from every cut-off)"
    )
    assert [o.swapped for o in result.opinions] == [False, False]


def test_contradicting_the_decision_of_the_tier_below_is_asked_in_the_other_order() -> None:
    # Nano decided (0.9 >= its 0.8 threshold) and escalated its regression as it always does;
    # a confident Super pass overturns it, so the swap is the tie-break.
    # Ultra then agrees with Nano, the nearest tier below that decided, far from block_confidence: once.
    models = judges(
        [answer("regression", 0.9)],
        [answer("pass", 0.95), answer("regression", 0.9)],
        [
            answer("regression", 0.9),
        ],
    )
    result = gate(models)
    assert asked(models) == {"nano": 1, "super": 2, "ultra": 1}
    assert (result.outcome, result.decided_by) == ("regression", "ultra")
    assert "super: unsure at 0.90 (orders disagree: golden first: pass at 0.95, replay first: regression" in (
        result.reason
    )


def test_a_tier_below_that_only_deferred_is_not_contradicted() -> None:
    # Nano's pass at 0.5 is under its threshold: it decided nothing, so Super's far answer stands alone.
    models = judges([answer("pass", 0.5)], [answer("regression", 0.95)])
    assert gate(models).decided_by == "super"
    assert asked(models) == {"nano": 1, "super": 1, "ultra": 0}


def test_a_last_tier_regression_near_block_confidence_is_asked_twice_a_far_pass_once() -> None:
    near = {"ultra": ScriptedJudge("u", [answer("regression", 0.75), answer("regression", 0.65)])}
    config = resolve_gate_config("cascade")
    ultra_step = config.tiers[-1].model_copy(update={"threshold": 0.0})
    last_only = config.model_copy(update={"tiers": [ultra_step]})
    result = gate_fixed(GOLDEN, FixedReplays(OUTPUT_ONLY), config=last_only, judges=dict(near))
    assert (len(near["ultra"].requests), result.outcome, result.confidence) == (2, "regression", 0.65)
    far = {"ultra": ScriptedJudge("u", [answer("pass", 0.72)])}
    result = gate_fixed(GOLDEN, FixedReplays(OUTPUT_ONLY), config=last_only, judges=dict(far))
    assert (len(far["ultra"].requests), result.outcome) == (1, "pass")


def test_swap_always_still_asks_both_orders() -> None:
    models = judges([answer("regression", 0.6)], [answer("regression", 0.95), answer("regression", 0.95)])
    config = resolve_gate_config("cascade")
    always = config.model_copy(update={"tiers": [s.model_copy(update={"swap": "always"}) for s in config.tiers]})
    gate_fixed(GOLDEN, FixedReplays(OUTPUT_ONLY), config=always, judges=dict(models))
    assert asked(models) == {"nano": 1, "super": 2, "ultra": 0}


def test_nano_settles_a_confident_regression_when_level0_shows_a_concrete_difference() -> None:
    models = judges([answer("regression", 0.85)], [])
    result = gate(models, ARGS_CHANGED)
    assert asked(models) == {"nano": 1, "super": 0, "ultra": 0}
    assert (result.outcome, result.decided_by, result.confidence) == ("regression", "nano", 0.85)
    assert result.reason == "nano: regression at 0.85 (settled: Level 0 shows args_changed)"


@pytest.mark.parametrize(
    ("replay", "nano"),
    [(OUTPUT_ONLY, 0.95), (ARGS_CHANGED, 0.79)],
    ids=["output-text-only", "below-settle_regression_at"],
)
def test_nano_escalates_a_regression_without_a_concrete_difference_or_below_the_bar(replay: Trace, nano: float) -> None:
    models = judges([answer("regression", nano)], [answer("regression", 0.95)])
    result = gate(models, replay)
    assert asked(models) == {"nano": 1, "super": 1, "ultra": 0}
    assert result.decided_by == "super"


def test_a_difference_the_golden_is_known_to_vary_does_not_settle() -> None:
    from ratchet.gate.cascade import concrete_difference
    from ratchet.gate.level0 import level0_findings

    findings = level0_findings(GOLDEN, ARGS_CHANGED)
    assert concrete_difference(findings) is not None
    varied = [f.model_copy(update={"known_to_vary": True}) for f in findings]
    assert concrete_difference(varied) is None


def test_settling_is_off_without_settle_regression_at() -> None:
    models = judges([answer("regression", 0.99)], [answer("regression", 0.95)])
    result = gate(models, ARGS_CHANGED, config="level0_off")
    assert asked(models)["super"] == 1
    assert result.decided_by == "super"


BASE = {
    "schema_version": 1,
    "tiers": [
        {"tier": "nano", "threshold": 0.8, "escalate_on": ["unsure", "regression"]},
        {"tier": "super", "threshold": 0.7, "swap_check": True},
    ],
}


def config_with(
    nano: dict[str, object] | None = None, super_: dict[str, object] | None = None, **top: object
) -> object:
    raw: dict[str, object] = {**BASE, **top}
    tiers = [dict(BASE["tiers"][0]), dict(BASE["tiers"][1])]  # type: ignore[index]
    tiers[0].update(nano or {})
    tiers[1].update(super_ or {})
    raw["tiers"] = tiers
    return raw


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (
            config_with(super_={"swap_check": False, "swap": "near_threshold"}),
            "tier 'super': swap: near_threshold needs swap_check: true",
        ),
        (config_with(super_={"swap": "sometimes"}), "tiers.1.swap: Input should be 'always' or 'near_threshold'"),
        (config_with(super_={"swap_margin": 0.9}), "tiers.1.swap_margin: Input should be less than or equal to 0.5"),
        (
            config_with(nano={"escalate_on": ["unsure"], "settle_regression_at": 0.9}),
            "tier 'nano': settle_regression_at needs regression in escalate_on",
        ),
        (
            config_with(nano={"settle_regression_at": 0.7}),
            "tier 'nano': settle_regression_at 0.7 is below its threshold 0.8",
        ),
        (
            config_with(super_={"escalate_on": ["regression"], "settle_regression_at": 0.9}),
            "tier 'super': settle_regression_at on the last tier has nothing to settle",
        ),
    ],
    ids=["swap-without-swap_check", "unknown-swap", "margin", "no-regression-escalation", "below-threshold",
         "last-tier"],
)  # fmt: skip
def test_a_policy_that_cannot_work_is_one_line_naming_the_field(raw: object, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_gate_config(raw, source="configs/mine.yaml")
    text = str(caught.value)
    assert message in text
    assert "\n" not in text


def test_a_copied_cascade_with_level0_off_parses_and_never_settles() -> None:
    # A team that copies the cascade and turns Level 0 off keeps a config that loads: with no Level 0 deciding,
    # there is no concrete difference to settle on, so the tier escalates as it did (cascade.py checks level0).
    config = parse_gate_config(config_with(nano={"settle_regression_at": 0.9}, level0=False), source="mine.yaml")
    assert not config.level0 and config.tiers[0].settle_regression_at == 0.9


def test_the_packaged_cascades_use_the_policy_and_the_baselines_do_not() -> None:
    def policy(config: GateConfig) -> list[tuple[str, str, float | None]]:
        return [(s.tier, s.swap, s.settle_regression_at) for s in config.tiers]

    cascade = [("nano", "always", 0.8), ("super", "near_threshold", None), ("ultra", "near_threshold", None)]
    for name in ("cascade", "drift_off", "noise"):
        assert policy(resolve_gate_config(name)) == cascade, name
    assert policy(resolve_gate_config("level0_off")) == [(t, s, None) for t, s, _ in cascade]
    assert policy(resolve_gate_config("ultra_only")) == [("ultra", "always", None)]
    assert policy(resolve_gate_config("super_only")) == [("super", "always", None)]
