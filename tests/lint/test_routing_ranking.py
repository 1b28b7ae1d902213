"""trigger.ranked_scores: the ranking match_skill decides on, with the margin a user needs to see."""

from __future__ import annotations

import pytest

from ratchet.agent.trigger import MARGIN, THRESHOLD, match_skill, ranked_scores, route_scores
from tests.helpers.sim_run import SKILLS, TASKS


@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_ranking_agrees_with_match_skill_and_route_scores(task_id: str) -> None:
    prompt = TASKS[task_id].prompt
    ranking = ranked_scores(prompt, SKILLS)
    assert dict(ranking.ranked) == route_scores(prompt, SKILLS)
    assert ranking.fired == match_skill(prompt, SKILLS)
    assert [score for _, score in ranking.ranked] == sorted((s for _, s in ranking.ranked), reverse=True)


def test_margin_is_best_over_runner_up() -> None:
    ranking = ranked_scores(TASKS["fx-expense-converter-04"].prompt, SKILLS)
    (best, top), (_, second) = ranking.ranked[0], ranking.ranked[1]
    assert ranking.best == best == "fx-expense-converter" == ranking.fired
    assert ranking.score == top and ranking.margin == round(top - second, 6)
    assert ranking.score >= THRESHOLD and ranking.margin >= MARGIN


def test_a_tie_fires_nothing_and_has_zero_margin() -> None:
    two = {name: SKILLS["github-triage"].model_copy(update={"name": name}) for name in ("a-skill", "b-skill")}
    ranking = ranked_scores(TASKS["github-triage-01"].prompt, two)
    assert ranking.best == "a-skill" and ranking.margin == 0.0 and ranking.fired is None


def test_one_skill_margin_is_its_score_and_no_skill_fires_nothing() -> None:
    one = {"github-triage": SKILLS["github-triage"]}
    ranking = ranked_scores(TASKS["github-triage-01"].prompt, one)
    assert ranking.margin == ranking.score and ranking.fired == "github-triage"
    empty = ranked_scores("anything", {})
    assert (empty.ranked, empty.best, empty.score, empty.margin, empty.fired) == ([], None, 0.0, 0.0, None)


def test_a_skill_the_model_may_not_pick_is_ranked_but_never_best_or_fired() -> None:
    """The report must say what the runner does: match_skill leaves such a skill out after scoring."""
    prompt = TASKS["github-triage-01"].prompt
    skills = dict(SKILLS)
    skills["github-triage"] = skills["github-triage"].model_copy(update={"model_invocable": False})
    ranking = ranked_scores(prompt, skills)
    assert dict(ranking.ranked) == route_scores(prompt, SKILLS)
    assert ranking.fired == match_skill(prompt, skills) and ranking.best != "github-triage"
    eligible = [(n, s) for n, s in ranking.ranked if n != "github-triage"]
    assert ranking.score == eligible[0][1] and ranking.margin == round(eligible[0][1] - eligible[1][1], 6)
