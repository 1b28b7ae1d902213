from __future__ import annotations

import pytest

from ratchet.agent.trigger import match_skill, route_scores, stem, tokens
from ratchet.skills.skill import Skill
from tests.helpers.sim_run import OWN_SKILLS, OWN_TASKS, SKILLS, TASKS


def with_description(name: str, description: str) -> dict[str, Skill]:
    skills = dict(SKILLS)
    skills[name] = skills[name].model_copy(update={"description": description})
    return skills


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_every_task_routes_to_its_skill_and_canaries_to_none(task) -> None:  # type: ignore[no-untyped-def]
    own = {name: skill for name, skill in SKILLS.items() if name in OWN_SKILLS}
    assert match_skill(task.prompt, own) == task.skill
    assert match_skill(task.prompt, SKILLS) == task.skill


def test_scores_are_deterministic_and_bounded() -> None:
    prompt = TASKS["fx-expense-converter-04"].prompt
    scores = route_scores(prompt, SKILLS)
    assert scores == route_scores(prompt, SKILLS)
    assert all(0.0 <= s <= 1.0 for s in scores.values())
    assert match_skill("", SKILLS) is None


def test_light_stemming() -> None:
    assert stem("issues") == stem("issue") == "issu"
    assert stem("converting") == stem("converted") == stem("convert")
    assert tokens("Please convert the expenses") == ["convert", "expens"]


def test_broadened_description_over_fires_on_a_canary() -> None:  # R5
    canary = TASKS["canary-03"].prompt
    assert match_skill(canary, SKILLS) is None
    broad = SKILLS["github-triage"].description + " Also explain any difference between a process and a thread."
    assert match_skill(canary, with_description("github-triage", broad)) == "github-triage"


def test_narrowed_description_under_fires() -> None:  # R6
    prompt = TASKS["fx-expense-converter-05"].prompt
    assert match_skill(prompt, SKILLS) == "fx-expense-converter"
    narrow = "Convert a EUR invoice PDF into GBP for the London office ledger."
    assert match_skill(prompt, with_description("fx-expense-converter", narrow)) is None
