"""Metrics on hand-made scored edits: every definition in the seed's metric table."""

from __future__ import annotations

import pytest

from ratchet.bench.data.results import NoiseGolden, ScoredEdit, TierUsage
from ratchet.bench.report.metrics import (
    block_recall,
    cost_per_verdict,
    detection_recall,
    drift_accuracy,
    false_block_rate,
    false_warn_rate,
    judge_kappa,
    noise_floor,
    pair_level,
    prompt_cache_share,
)
from ratchet.config.gate import JudgeVerdict
from ratchet.gate.models import Decision, Opinion, Outcome, PairOutcome, Verdict


def _pair(task: str, outcome: Outcome, said: dict[str, JudgeVerdict] | None = None) -> PairOutcome:
    opinions = [Opinion(tier=t, prompt_version="t", verdict=v, confidence=0.9) for t, v in (said or {}).items()]
    return PairOutcome(
        task_id=task,
        golden_skill="s",
        selected_because="routed",
        outcome=outcome,
        decided_by="x",
        reason="r",
        opinions=opinions,
    )


def _edit(
    eid: str,
    kind: str,
    decision: Decision,
    *,
    expected: Decision | None = None,
    pairs: list[PairOutcome] | None = None,
    labeled: dict[str, Outcome] | None = None,
    usd: float = 0.0,
    cached: int = 0,
) -> ScoredEdit:
    verdict = Verdict(base="b", head=eid, skills_changed=["s"], decision=decision, summary="", pairs=pairs or [])
    return ScoredEdit(
        edit_id=eid,
        type=kind,
        skill="s",
        verdict=verdict,  # type: ignore[arg-type]
        expected_decision=expected or ("BLOCK" if kind.startswith("R") else "PASS"),
        expected_pairs=labeled or {},
        usage={"agent": TierUsage(calls=1, tokens_in=100, tokens_cached=cached, usd=usd)},
    )


def test_recall_counts_block_or_warn_and_block_recall_only_block() -> None:
    edits = [_edit("a", "R1", "BLOCK"), _edit("b", "R1", "WARN"), _edit("c", "R2", "PASS"), _edit("d", "N0", "BLOCK")]
    recall = detection_recall(edits)
    assert recall["R1"] == 1.0 and recall["R2"] == 0.0 and recall["R3"] is None
    assert recall["overall"] == pytest.approx(2 / 3, abs=1e-6)
    assert block_recall(edits)["overall"] == pytest.approx(1 / 3, abs=1e-6)


def test_a_reviewer_override_changes_what_is_scored() -> None:
    overridden = _edit("a", "R1", "PASS", expected="PASS")
    assert detection_recall([overridden])["overall"] is None
    assert false_block_rate([_edit("b", "R2", "BLOCK", expected="PASS")])["controls"] is None


def test_false_blocks_and_false_warns() -> None:
    edits = [_edit("a", "N0", "BLOCK"), _edit("b", "N0", "WARN"), _edit("c", "D1", "PASS"), _edit("d", "D1", "PASS")]
    rates = false_block_rate(edits)
    assert rates == {"N0": 0.5, "D1": 0.0, "F0": None, "controls": 0.25}
    assert false_warn_rate(edits) == 0.5
    assert false_warn_rate([]) is None


def test_drift_accuracy_does_not_count_a_pair_that_did_not_differ() -> None:
    labeled: dict[str, Outcome] = {"t1": "drift", "t2": "drift"}
    calm = _edit("a", "D1", "PASS", pairs=[_pair("t1", "drift"), _pair("t2", "same")], labeled=labeled)
    missed = _edit("b", "D1", "PASS", pairs=[_pair("t1", "drift"), _pair("t2", "pass")], labeled=labeled)
    blocked = _edit("c", "D1", "BLOCK", pairs=[_pair("t1", "regression")], labeled=labeled)
    assert drift_accuracy([calm]) == 1.0
    assert drift_accuracy([calm, missed, blocked]) == pytest.approx(1 / 3, abs=1e-6)


def test_cost_mean_and_p95_by_tier() -> None:
    edits = [_edit(str(i), "R1", "BLOCK", usd=float(i)) for i in range(1, 21)]
    cost = cost_per_verdict(edits)
    assert cost["agent"].mean == pytest.approx(10.5) and cost["agent"].p95 == pytest.approx(19.05)
    assert cost["total"].n == 20


def test_kappa_per_tier_and_undefined_cases() -> None:
    pairs = [
        _pair("t1", "regression", {"nano": "regression", "super": "regression"}),
        _pair("t2", "pass", {"nano": "regression", "super": "pass"}),
    ]
    edit = _edit("a", "R1", "BLOCK", pairs=pairs, labeled={"t1": "regression", "t2": "same"})
    kappa = judge_kappa([edit])
    assert kappa["super"] == 1.0
    assert kappa["nano"] == 0.0
    assert kappa["ultra"] is None
    one_class = _edit("b", "N0", "PASS", pairs=[_pair("t1", "pass", {"nano": "pass"})], labeled={"t1": "same"})
    assert judge_kappa([one_class])["nano"] is None


def test_noise_floor_and_cache_share_and_pair_level() -> None:
    golden = NoiseGolden(
        task_id="t", skill="s", outcomes=[_pair("t", "same"), _pair("t", "pass"), _pair("t", "regression")]
    )
    assert noise_floor([golden]) == pytest.approx(2 / 3, abs=1e-6)
    assert noise_floor([]) is None
    share = prompt_cache_share([_edit("a", "R1", "BLOCK", cached=25), _edit("b", "R1", "BLOCK", cached=0)])
    assert share == {"agent": 0.125, "overall": 0.125}
    edit = _edit(
        "c",
        "R1",
        "BLOCK",
        pairs=[_pair("t1", "regression"), _pair("t2", "regression")],
        labeled={"t1": "regression", "t2": "same"},
    )
    level = pair_level([edit])
    assert (level.caught, level.labeled_regressions, level.false_alarms, level.labeled_clean) == (1, 1, 1, 1)
