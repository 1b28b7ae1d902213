"""The routing index answers exactly what the per-prompt matcher it replaced answered.

The old implementation is kept only among the tests, as the oracle (tests/helpers/routing_oracle.py):
every score (compared by its bits), every ranking and every routing decision must match it, over
every skill set Ratchet ships (skills/, the demo's, each bench edit's head set, the test
projects) and over seeded random skill sets and prompts (hypothesis is not installed in this venv, so the cases come from
random.Random with fixed seeds: the same cases on every run).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from ratchet.agent import trigger
from ratchet.agent.trigger import (
    Ranking,
    match_skill,
    ranked_scores,
    route_scores,
    routing_index,
)
from ratchet.bench.data.dataset import read_edits
from ratchet.goldens.tasks import load_tasks
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text
from tests.helpers.routing_oracle import (
    old_ranked_scores,
    old_route_scores,
    random_prompts,
    random_skills,
)

REPO = Path(__file__).resolve().parents[2]


# --- comparing to the last bit ------------------------------------------------------------------------


def _bits(scores: Mapping[str, float]) -> list[tuple[str, str]]:
    return [(name, score.hex()) for name, score in scores.items()]


def _ranking_bits(ranking: Ranking) -> tuple[object, ...]:
    return (
        _bits(dict(ranking.ranked)),
        [n for n, _ in ranking.ranked],
        ranking.best,
        ranking.score.hex(),
        ranking.margin.hex(),
        ranking.fired,
    )


def assert_same_as_oracle(prompt: str, skills: Mapping[str, Skill]) -> None:
    assert _bits(route_scores(prompt, skills)) == _bits(old_route_scores(prompt, skills))
    old = old_ranked_scores(prompt, skills)
    assert _ranking_bits(ranked_scores(prompt, skills)) == _ranking_bits(old)
    assert match_skill(prompt, skills) == old.fired
    # A fresh index (no remembered answer) agrees too: the fast path is not only the memo.
    assert trigger.RoutingIndex(skills).fired(prompt) == old.fired


# --- every shipped skill set ----------------------------------------------------------------------------


def _shipped_skill_sets() -> Iterator[tuple[str, dict[str, Skill]]]:
    base = load_skills(REPO / "skills")
    yield "skills", base
    yield "demo", load_skills(REPO / "ratchet/data/demo/skills")
    yield "freeform", load_skills(REPO / "tests/data/freeform/skills")
    for edit in read_edits(REPO / "bench/edits").values():
        edited = parse_skill_text(edit.skill_md, folder=REPO / "skills" / edit.skill, source=edit.id)
        yield f"edit {edit.id}", {**base, edit.skill: edited}


def _shipped_prompts() -> list[str]:
    prompts = [t.prompt for t in load_tasks(REPO / "bench/tasks.yaml")]
    prompts += [t.prompt for t in load_tasks(REPO / "ratchet/data/demo/tasks.yaml")]
    prompts += [t.prompt for t in load_tasks(REPO / "tests/data/freeform/tasks.yaml")]
    for folder in ("skills", "ratchet/data/demo/skills"):
        prompts += [trigger.trigger_text(s) for s in load_skills(REPO / folder).values()]
    return [*prompts, "", "the and of", "zzz unknown words only"]


SHIPPED = list(_shipped_skill_sets())
PROMPTS = _shipped_prompts()


def test_the_shipped_sets_are_all_here() -> None:
    assert len(SHIPPED) >= 3 + 140 and len(PROMPTS) > 100


@pytest.mark.parametrize(("label", "skills"), SHIPPED, ids=[label for label, _ in SHIPPED])
def test_every_shipped_skill_set_routes_every_shipped_prompt_as_before(label: str, skills: dict[str, Skill]) -> None:
    for prompt in PROMPTS:
        assert_same_as_oracle(prompt, skills)


@pytest.mark.parametrize("seed", range(300))
def test_random_skill_sets_and_prompts_route_as_before(seed: int) -> None:
    rng = random.Random(seed)
    skills = random_skills(rng)
    for prompt in random_prompts(rng, skills):
        assert_same_as_oracle(prompt, skills)


def test_random_cases_include_ties_fires_and_no_fires() -> None:
    """The random cases exercise every branch: something fires, nothing fires, a tie at the top."""
    fired = none = ties = 0
    for seed in range(300):
        rng = random.Random(seed)
        skills = random_skills(rng)
        for prompt in random_prompts(rng, skills):
            ranking = old_ranked_scores(prompt, skills)
            fired += ranking.fired is not None
            none += ranking.fired is None
            ties += len(ranking.ranked) > 1 and ranking.ranked[0][1] == ranking.ranked[1][1] > 0
    assert fired > 100 and none > 100 and ties > 20


def _assert_index_as_oracle(index: trigger.RoutingIndex, prompt: str, skills: Mapping[str, Skill]) -> None:
    old = old_ranked_scores(prompt, skills)
    assert _bits(index.scores(prompt)) == _bits(old_route_scores(prompt, skills))
    assert _ranking_bits(index.ranking(prompt)) == _ranking_bits(old)
    assert index.fired(prompt) == old.fired


@pytest.mark.parametrize("seed", range(60))
def test_large_random_sets_route_as_before_grouped_alone_and_near_midpoints(seed: int) -> None:
    """Past 16 skills common terms are grouped: each way of scoring a skill gives the oracle's bits.

    Default grouping; every term common (all grouped); every term rare (all alone); and every
    group treated as near a rounding midpoint (its members scored alone after the group sum).
    """
    rng = random.Random(1000 + seed)
    skills = random_skills(rng, most=120)
    ways = [{}, {"rare_df": 0}, {"rare_df": 10**6}, {"rare_df": 0, "midpoint_slack": 1.0}]
    indexes = [trigger.RoutingIndex(skills, **way) for way in ways]  # type: ignore[arg-type]
    for prompt in random_prompts(rng, skills):
        for index in indexes:
            _assert_index_as_oracle(index, prompt, skills)


def test_the_large_sets_do_form_groups() -> None:
    grouped = 0
    for seed in range(60):
        skills = random_skills(random.Random(1000 + seed), most=120)
        index = trigger.RoutingIndex(skills)
        grouped += len(index._groups) < len(skills) and any(common for common, _, _ in index._groups)
    assert grouped > 30


# --- the cache -----------------------------------------------------------------------------------------


def _skill(name: str, description: str, body: str = "") -> Skill:
    return Skill(name=name, description=description, body=body, folder=name, content_hash=body, substance_hash=body)


def test_the_index_is_built_once_per_content_and_a_body_edit_reuses_it() -> None:
    skills = {"fx": _skill("fx", "Convert EUR to GBP"), "cal": _skill("cal", "Schedule meetings")}
    index = routing_index(skills)
    assert routing_index(dict(skills)) is index  # a new mapping with the same content
    assert routing_index({**skills, "fx": _skill("fx", "Convert EUR to GBP", body="# new body")}) is index
    assert routing_index({**skills, "fx": _skill("fx", "Convert EUR to USD")}) is not index
    hidden = {**skills, "fx": skills["fx"].model_copy(update={"model_invocable": False})}
    assert routing_index(hidden) is not index
    assert match_skill("convert EUR to GBP", skills) == "fx" and match_skill("convert EUR to GBP", hidden) is None


def test_the_cache_drops_the_least_recently_used_past_its_skill_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trigger, "_CACHE_SKILLS", 4)
    monkeypatch.setattr(trigger, "_cache", type(trigger._cache)())
    sets = [{f"s{n}-{i}": _skill(f"s{n}-{i}", f"word{n} other{i}") for i in range(2)} for n in range(3)]
    first, second = routing_index(sets[0]), routing_index(sets[1])
    assert routing_index(sets[0]) is first  # now the most recent
    routing_index(sets[2])  # 6 skills held > 4: the least recently used (sets[1]) goes
    assert routing_index(sets[0]) is first and routing_index(sets[1]) is not second


def test_a_set_larger_than_the_budget_is_still_kept_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trigger, "_CACHE_SKILLS", 1)
    monkeypatch.setattr(trigger, "_cache", type(trigger._cache)())
    skills = {f"s{i}": _skill(f"s{i}", f"word{i}") for i in range(3)}
    assert routing_index(skills) is routing_index(skills)
