"""Judge rates from labeled opinions: scripted tiers with known error patterns give exactly these rates."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.models import Review
from ratchet.bench.data.results import BenchResults, Timings
from ratchet.bench.data.summary import read_summary, write_summary
from ratchet.bench.report.judge_rates import family_warning, judge_rates, model_family, render_text
from ratchet.bench.report.labeled import (
    LabeledOpinion,
    labeled_opinions,
    labeled_opinions_by_tier,
    tier_sources,
)
from ratchet.bench.report.report import render_report
from ratchet.config.gate import GateConfig
from ratchet.gate.models import Opinion
from tests.helpers.scripted_judges import (
    NANO,
    SUPER,
    edit_id,
    labels_for,
    scripted_results,
    scripted_run,
    task_id,
)

CASCADE = GateConfig()
LIVE = {
    "agent": "openai/gpt-4o",
    "nano": "openai/gpt-4o-mini",
    "super": "anthropic/claude-3-5-haiku",
    "ultra": "nebius/nvidia/Llama-3_1-Nemotron-Ultra-253B",
}


class SwappedOpinion(Opinion):
    """An opinion from the swapped-order second look (the field Opinion may gain; getattr reads either)."""

    swapped: bool = True


def _rows(results: BenchResults, config: GateConfig = CASCADE) -> dict[str, tuple[object, ...]]:
    rates = judge_rates(results, config)
    return {r.tier: (r.source, r.positives, r.negatives, r.tpr.k, r.fpr.k, r.unsure.k, r.flagged) for r in rates.tiers}


def test_scripted_tiers_give_exactly_their_rates_and_flags() -> None:
    rates = judge_rates(scripted_results(), CASCADE)
    assert _rows(scripted_results()) == {
        "nano": (
            "nano_only",
            20,
            20,
            14,
            2,
            2,
            "TPR lower bound 48.1% < floor 60.0%; FPR upper bound 30.1% > ceiling 20.0%",
        ),
        "super": ("super_only", 20, 20, 18, 0, 2, None),
        "ultra": ("cascade", 20, 20, 19, 1, 0, "FPR upper bound 23.6% > ceiling 20.0%"),
    }
    nano = rates.tiers[0]
    assert (nano.tpr.share, nano.tpr.low, nano.tpr.high) == (0.7, 0.481027, 0.854523)
    assert (nano.fpr.share, nano.fpr.low, nano.fpr.high) == (0.1, 0.027866, 0.301034)
    assert (nano.unsure.k, nano.unsure.n, nano.unsure.share) == (2, 40, 0.05)
    assert rates.tiers[1].fpr.high == 0.161125 and rates.tiers[1].tpr.low == 0.698966


def test_single_tier_runs_win_over_the_cascade_and_ultra_falls_back_to_it() -> None:
    results = scripted_results()
    assert tier_sources(results) == {"nano": ["nano_only"], "super": ["super_only"], "ultra": ["cascade"]}
    by_tier = labeled_opinions_by_tier(results)
    # The cascade's nano is perfect; nano_only's is not: the rates must be nano_only's.
    assert {o.config for o in by_tier["nano"]} == {"nano_only"}
    assert sum(o.verdict == "regression" for o in by_tier["nano"] if o.label_regression) == 14
    del results.runs["nano_only"]
    assert tier_sources(results)["nano"] == ["cascade"]
    assert sum(o.verdict == "regression" for o in labeled_opinions_by_tier(results)["nano"]) == 20


def test_the_floor_and_ceiling_come_from_the_gate_config() -> None:
    lenient = GateConfig(judge_tpr_floor=0.4, judge_fpr_ceiling=0.35)
    assert {t: row[-1] for t, row in _rows(scripted_results(), lenient).items()} == {
        "nano": None,
        "super": None,
        "ultra": None,
    }
    strict = GateConfig(judge_tpr_floor=0.75)
    assert _rows(scripted_results(), strict)["super"][-1] == "TPR lower bound 69.9% < floor 75.0%"
    with pytest.raises(ValidationError):
        GateConfig(judge_fpr_ceiling=1.5)
    with pytest.raises(ValidationError):
        GateConfig(judge_tpr_floor=-0.1)


def test_unchanged_skill_replays_are_negatives() -> None:
    results = scripted_results(with_noise=True)
    rows = _rows(results)
    # NANO answers the first of its 6 noise pairs regression; SUPER none; the noise run has no ultra.
    assert rows["nano"][:6] == ("nano_only, noise", 20, 26, 14, 3, 2)
    assert rows["super"][:6] == ("super_only, noise", 20, 26, 18, 0, 2)
    assert rows["ultra"][:3] == ("cascade", 20, 20)
    unchanged = [o for o in labeled_opinions(results) if o.origin == "unchanged"]
    assert len(unchanged) == 12 and not any(o.label_regression for o in unchanged)
    assert unchanged[0].edit_id == "unchanged#0" and unchanged[0].task_id == task_id(0)
    assert not [o for o in labeled_opinions(results, unchanged=False) if o.origin == "unchanged"]
    assert (
        labeled_opinions_by_tier(results, unchanged=False)["nano"]
        == labeled_opinions_by_tier(scripted_results())["nano"]
    )


def test_a_review_correcting_a_pair_overrides_its_label() -> None:
    results, labels = scripted_results(), labels_for()
    # Edit 0's pair: NANO said regression on it. The reviewer says it is not one: a false positive now.
    review = Review(
        edit_id=edit_id(0),
        edit_hash=f"hash-{edit_id(0)}",
        verdict="disagree",
        decision="PASS",
        pairs={task_id(0): "same"},
    )
    nano = judge_rates(results, CASCADE, labels, [review]).tiers[0]
    assert (nano.positives, nano.negatives, nano.tpr.k, nano.fpr.k) == (19, 21, 13, 3)
    stale = review.model_copy(update={"edit_hash": "hash-of-an-older-edit"})
    nano = judge_rates(results, CASCADE, labels, [stale]).tiers[0]
    assert (nano.positives, nano.negatives, nano.tpr.k, nano.fpr.k) == (20, 20, 14, 2)


def test_labels_given_replace_the_scored_ones_and_unlabeled_edits_are_left_out() -> None:
    results, labels = scripted_results(), labels_for()
    assert labeled_opinions(results, labels) == labeled_opinions(results)
    only_five = {k: labels[k] for k in sorted(labels)[:5]}
    assert {o.edit_id for o in labeled_opinions(results, only_five)} == set(only_five)


def test_swapped_and_error_opinions_and_unsure_labels_are_left_out() -> None:
    run = scripted_run("nano_only", [NANO], positives=2, negatives=0)
    pair = run.edits[edit_id(0)].verdict.pairs[0]
    pair.opinions += [
        SwappedOpinion(tier="nano", prompt_version="t", verdict="pass", confidence=0.5),
        Opinion(tier="nano", prompt_version="t", verdict=None, error="unparseable"),
    ]
    results = BenchResults(runs={"nano_only": run})
    assert [(o.edit_id, o.verdict) for o in labeled_opinions(results)] == [
        (edit_id(0), "regression"),
        (edit_id(1), "regression"),
    ]
    run.edits[edit_id(1)].expected_pairs[task_id(1)] = "unsure"
    assert [o.edit_id for o in labeled_opinions(results)] == [edit_id(0)]


def test_opinions_are_sorted_and_rates_do_not_depend_on_run_order() -> None:
    results = scripted_results(with_noise=True)
    shuffled = BenchResults(runs=dict(reversed(list(results.runs.items()))))
    found = labeled_opinions(results)
    assert found == labeled_opinions(shuffled)
    assert found == sorted(found, key=lambda o: (o.config, o.edit_id, o.task_id, o.tier))
    assert judge_rates(results, CASCADE).model_dump_json() == judge_rates(shuffled, CASCADE).model_dump_json()


def test_the_summary_keeps_confidence_so_it_can_be_calibrated(tmp_path: Path) -> None:
    results = scripted_results(with_noise=True)
    write_summary(tmp_path, results)
    back = labeled_opinions(read_summary(tmp_path))
    assert back == labeled_opinions(results)
    assert {o.confidence for o in back} == {0.9, 0.55}
    assert isinstance(back[0], LabeledOpinion)


@pytest.mark.parametrize(
    ("model_id", "family"),
    [
        ("openai/gpt-4o-mini", "gpt"),
        ("anthropic/claude-3-5-haiku", "claude"),
        ("ollama/llama3.1:8b", "llama"),
        ("nebius/nvidia/Llama-3_1-Nemotron-Ultra-253B", "nemotron"),
        ("openai/o3-mini", "gpt"),
        ("mistralai/Mixtral-8x7B-Instruct", "mistral"),
        ("gemini/gemini-2.0-flash", "gemini"),
        ("hosted_vllm/Qwen/Qwen2.5-7B-Instruct", "qwen"),
        ("acme-7b", "acme"),
        ("sim/judge-nano", "sim"),
    ],
)
def test_model_family(model_id: str, family: str) -> None:
    assert model_family(model_id) == family


def test_a_judge_of_the_agents_family_is_warned_about_and_a_simulated_one_never() -> None:
    live = judge_rates(scripted_results(models=LIVE, simulated=False), CASCADE)
    assert live.warnings == [
        "nano judge openai/gpt-4o-mini and the agent openai/gpt-4o are both the gpt family: a judge may prefer "
        "its own family's output; judge with another family, or read its FPR with care"
    ]
    assert not live.simulated and SIMULATED_BANNER not in render_text(live)
    simulated = judge_rates(scripted_results(), CASCADE)
    assert simulated.warnings == [] and simulated.simulated
    assert render_text(simulated).startswith(f"{SIMULATED_BANNER}\n\n")
    row = simulated.tiers[0].model_copy(update={"model": "sim/gpt-judge", "agent_model": "sim/gpt-agent"})
    assert family_warning(row) is None


def test_the_bench_report_has_the_judges_section() -> None:
    text, _ = render_report(scripted_results(), Timings())
    head = "## Judges: how far each tier can be trusted"
    assert head in text
    section = text[text.index(head) : text.index("## Worked examples")]
    assert f"> **{SIMULATED_BANNER}**" in section
    assert "_Computed by `ratchet.bench.report.judge_rates.judge_rates`._" in section
    assert (
        "| nano | nano_only | sim/judge-nano | 40 (20 regression, 20 not) | 70.0% [48.1%, 85.5%] (14/20) | "
        "10.0% [2.8%, 30.1%] (2/20) | 5.0% | TPR lower bound 48.1% < floor 60.0%; FPR upper bound 30.1% > "
        "ceiling 20.0% |"
    ) in section
    empty, _ = render_report(BenchResults(runs={"nano_only": scripted_run("nano_only", [], positives=1)}), Timings())
    assert "No labeled pair reached a judge in these results." in empty


def test_super_alone_is_what_super_only_measures() -> None:
    results = BenchResults(runs={"super_only": scripted_run("super_only", [SUPER])})
    assert list(labeled_opinions_by_tier(results)) == ["super"]
    assert [r.tier for r in judge_rates(results, CASCADE).tiers] == ["super"]
