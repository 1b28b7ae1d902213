from __future__ import annotations

from ratchet.gate.decide import decide_edit, no_change, pairs_cost
from ratchet.gate.models import Outcome, PairOutcome


def pair(task_id: str, outcome: Outcome) -> PairOutcome:
    return PairOutcome(
        task_id=task_id,
        golden_skill="s",
        selected_because="routed",
        outcome=outcome,
        decided_by="level0",
        reason=f"{outcome} reason",
    )


def test_edit_decisions() -> None:
    assert decide_edit([])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "same")])[0] == "PASS"
    assert decide_edit([pair("a", "same"), pair("b", "unsure")])[0] == "WARN"
    decision, summary = decide_edit([pair("a", "unsure"), pair("b", "regression")])
    assert decision == "BLOCK" and "b" in summary


def test_error_pairs_fail_closed() -> None:
    assert decide_edit([pair("a", "same"), pair("b", "error")])[0] == "WARN"
    assert decide_edit([pair("a", "same"), pair("b", "error")], on_error="block")[0] == "BLOCK"


def test_no_change_is_a_pass_built_in_one_place() -> None:
    verdict = no_change(base="a", head="b", simulated=True, on_error="block")
    assert (verdict.decision, verdict.summary, verdict.on_error, verdict.pairs) == (
        "PASS",
        "no skill changed",
        "block",
        [],
    )


def test_the_summary_of_unchecked_pairs_names_what_applied_not_a_flag() -> None:
    # on_error="block" is both `--on-error block` (exit 1) and the CLI's default with no flag (exit 3): the summary
    # says what holds in both, not "(on-error block)", which reads as a flag the user may not have given.
    assert decide_edit([pair("a", "same"), pair("b", "error")], on_error="block") == (
        "BLOCK",
        "1 pair(s) could not be checked (unchecked pairs block), first b: error reason",
    )


# The pair costs of a demo check (issue 30): summed as computed they round to $0.053634, as the shard files
# hold them (USD serializes to 9 places) to $0.053635; a merged --shard run must cost what the whole one does.
COSTS = [
    0.0028706,
    0.0029478799999999995,
    0.0029412,
    0.00413584,
    0.0029441199999999997,
    0.00293702,
    0.00311054,
    0.0028722,
    0.002379,
    0.0009147000000000001,
    0.0031703,
    0.0026892,
    0.0027053,
    0.0032005,
    0.0026822,
    0.0022115,
    0.0022056999999999997,
    0.0031769,
    0.0026915000000000003,
    0.0008483,
]


def test_the_cost_of_pairs_is_what_their_files_sum_to() -> None:
    pairs = [pair(f"t{n}", "same").model_copy(update={"cost_usd": cost}) for n, cost in enumerate(COSTS)]
    read = [PairOutcome.model_validate_json(p.model_dump_json()) for p in pairs]
    assert f"{sum(p.cost_usd for p in pairs):.6f}" != f"{sum(p.cost_usd for p in read):.6f}"  # the hole
    assert pairs_cost(pairs) == pairs_cost(read)
