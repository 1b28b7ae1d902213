"""A mutant is killed only by a pair that noticed it like for like: a regression or unsure pair whose golden was
recorded as its replay ran. A pair whose golden was recorded elsewhere (the simulator, replayed live) differs for
that reason, not the mutant's; an inconclusive pair differs only where its golden is known to vary (noise)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.gate.models import Outcome, PairOutcome, ProvenanceDifference, Verdict
from ratchet.goldens.mutation import read_score
from ratchet.mutate.models import Mutant
from ratchet.mutate.outcome import outcome_of
from ratchet.mutate.render import render_markdown
from ratchet.mutate.run import MutateOptions, mutate_project
from ratchet.outputs.text import md_inline
from tests.gate.test_check_provenance import _live_yaml
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit
from tests.mutate.hand_made import FX, TRIAGE, HandMade

MUTANT = Mutant(id="s/op-1", skill="s", mutant_class="R1", operator="op", description="d", files={})
SIM_TO_LIVE = [ProvenanceDifference(kind="upstream", golden="sim", replay="live")]


def _pair(task: str, outcome: Outcome, provenance: list[ProvenanceDifference] | None = None) -> PairOutcome:
    return PairOutcome(
        task_id=task,
        golden_skill="s",
        selected_because="routed",
        outcome=outcome,
        decided_by="level0",
        reason=f"{outcome} here",
        provenance=provenance or [],
    )


def _verdict(*pairs: PairOutcome) -> Verdict:
    return Verdict(base="a", head="b", skills_changed=["s"], decision="WARN", summary="WARN: s", pairs=list(pairs))


def test_an_inconclusive_pair_is_noise_and_kills_nothing() -> None:
    outcome = outcome_of(MUTANT, _verdict(_pair("t-01", "inconclusive")), static="warn")
    assert outcome.status == "survived" and outcome.caught_by == []


def test_only_the_pairs_alike_in_provenance_count_as_catching_it() -> None:
    verdict = _verdict(_pair("t-01", "regression", SIM_TO_LIVE), _pair("t-02", "unsure"))
    outcome = outcome_of(MUTANT, verdict, static="warn")
    assert (outcome.status, outcome.caught_by) == ("killed", ["t-02"])
    assert outcome.reason == "caught by 1 golden(s), first t-02: unsure (level0): unsure here"


def test_a_ratchet_upgrade_alone_is_no_reason_to_discount_a_kill() -> None:
    # A note, not a warning, in the gate too (ratchet.gate.provenance): every upgrade would otherwise score 0.
    upgrade = [ProvenanceDifference(kind="ratchet_version", golden="0.1.0", replay="0.2.0")]
    outcome = outcome_of(MUTANT, _verdict(_pair("t-01", "regression", upgrade)), static="warn")
    assert outcome.status == "killed"


def test_when_every_noticing_pair_differs_in_provenance_it_survives_and_says_why() -> None:
    verdict = _verdict(_pair("t-01", "regression", SIM_TO_LIVE), _pair("t-02", "unsure", SIM_TO_LIVE))
    outcome = outcome_of(MUTANT, verdict, static="warn")
    assert (outcome.status, outcome.caught_by) == ("survived", [])
    assert outcome.reason == (
        "no golden noticed it like for like: 2 pair(s) differed, but their goldens were recorded otherwise than "
        "replayed (upstream: sim, replayed live), so not counted; first t-01: regression (level0): regression here"
    )


def test_goldens_recorded_on_the_simulator_replayed_live_kill_no_mutant(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI(listed=("model-a",)) as server:  # preflight asks the server whether it serves model-a
        commit(demo_repo, {"ratchet.yaml": _live_yaml(server, "openai/model-a")}, "go live")
        report = mutate_project(demo_repo, MutateOptions(source=HandMade(), config="level0_only", save=True))
    assert [o.status for o in report.outcomes] == ["survived"] * 4
    assert all("recorded otherwise than replayed (upstream: sim, replayed live)" in o.reason for o in report.outcomes)
    assert report.provenance == (
        "every replayed golden was recorded otherwise than replayed (upstream: sim, replayed live): the score is not "
        "like for like; re-record the goldens (ratchet record && ratchet bless) and run it again"
    )
    assert f"Not like for like: {md_inline(report.provenance)}" in render_markdown(report)
    # A score that is not like for like is not saved: it would read as the goldens' own.
    assert read_score(demo_repo / "goldens", FX) is None and read_score(demo_repo / "goldens", TRIAGE) is None
