"""The spend cap across a `ratchet mutate` run: each check gets what is left of `budget_usd`; when the cap
stops the run, the report names every mutant it left unchecked and why, and counts none of them."""

from __future__ import annotations

from pathlib import Path

from ratchet.mutate.render import render_markdown
from ratchet.mutate.run import MutateOptions, mutate_project
from tests.mutate.hand_made import FX, TRIAGE, HandMade


def test_a_tiny_budget_stops_the_run_and_the_report_says_what_it_did(demo_repo: Path) -> None:
    report = mutate_project(demo_repo, MutateOptions(source=HandMade(), budget_usd=0.03))
    statuses = [(o.mutant.id, o.status) for o in report.outcomes]
    # The first check fits in $0.03 (one replayed skill, ~$0.026 simulated); the second cannot.
    assert statuses[0] == (f"{FX}/insert-side-effect-1", "killed")
    assert [status for _, status in statuses[1:]] == ["unchecked"] * 3
    assert report.cost_usd <= 0.03
    assert report.stopped is not None and report.stopped.startswith("the run's budget of $0.0300 stopped it after ")
    stopped_by_check = report.outcomes[1]
    assert stopped_by_check.reason.startswith("not checked: the budget stopped ")
    for left in report.outcomes[2:]:
        assert left.reason == "not checked: the run's budget was spent before its check"
    scores = {s.skill: s for s in report.skills}
    assert (scores[FX].killed, scores[FX].survived, scores[FX].unchecked) == (1, 0, 1)
    assert (scores[TRIAGE].killed, scores[TRIAGE].survived, scores[TRIAGE].unchecked) == (0, 0, 2)
    markdown = render_markdown(report)
    assert f"Stopped: {report.stopped}" in markdown
    assert f"`{TRIAGE}/change-value-1`" in markdown  # an unchecked mutant is still named, with its diff
