"""Routing answers kept on disk (ratchet.agent.routed) are match_skill's, cold, warm and with damaged entries.

Over seeded random skill sets (tests/helpers/routing_oracle.py) and one-skill edits of them: a
description broadened, narrowed, renamed, or a skill made unpickable (then nothing is reused).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

from ratchet.agent import trigger
from ratchet.agent.routed import fired_for, holding, moved_words, word_postings
from ratchet.agent.trigger import match_skill, tokens
from ratchet.skills.skill import Skill
from ratchet.store.parsed import ParsedCache
from tests.helpers.routing_oracle import random_prompts, random_skills, random_text


def _truth(prompts: list[str], skills: Mapping[str, Skill]) -> list[str | None]:
    return [match_skill(prompt, skills) for prompt in prompts]


def _edited(rng: random.Random, skills: dict[str, Skill]) -> dict[str, Skill]:
    key = rng.choice(sorted(skills))
    skill = skills[key]
    kind = rng.randrange(3)
    change: dict[str, object]
    if kind == 0:
        change = {"description": skill.description + " " + random_text(rng, 1, 8)}
    elif kind == 1:
        change = {"description": " ".join(skill.description.split()[: rng.randint(0, 4)])}
    else:
        change = {"model_invocable": not skill.model_invocable}
    return {**skills, key: skill.model_copy(update=change)}


def _damage_all(cache: ParsedCache) -> int:
    damaged = 0
    for entry in cache.root.rglob("*.json"):
        raw = bytearray(entry.read_bytes())
        raw[-2] = ord("#") if raw[-2] != ord("#") else ord("!")  # inside the body: its digest no longer matches
        entry.write_bytes(bytes(raw))
        damaged += 1
    return damaged


def test_cold_warm_and_damaged_answers_are_match_skills(tmp_path: Path) -> None:
    rng = random.Random(2929)
    checked = 0
    for case in range(60):
        base = random_skills(rng, most=24)
        if not base:
            continue
        head = _edited(rng, base)
        prompts = random_prompts(rng, base) + random_prompts(rng, head)
        want_base, want_head = _truth(prompts, base), _truth(prompts, head)
        cache = ParsedCache(tmp_path / f"home{case}")
        assert fired_for(prompts, base, cache=cache) == want_base  # cold: stores the base's answers
        trigger._cache.clear()  # no in-process index carried over: as a fresh process
        assert fired_for(prompts, head, cache=cache, base=base) == want_head  # from the base's, re-routing some
        assert fired_for(prompts, head, cache=cache, base=base) == want_head  # warm: its own stored answers
        assert _damage_all(cache) >= 2  # the tokens and the answers (one set when the edit moved nothing)
        assert fired_for(prompts, head, cache=cache, base=base) == want_head  # damaged: ignored and rebuilt
        assert fired_for(prompts, head, cache=cache, base=base) == want_head  # rebuilt entries read back
        checked += 1
    assert checked >= 40


def test_an_edit_first_seen_stores_its_base_answers_too(tmp_path: Path) -> None:
    rng = random.Random(7)
    base = random_skills(rng, most=20)
    assert base
    head = _edited(rng, base)
    prompts = random_prompts(rng, base)
    cache = ParsedCache(tmp_path / "home")
    assert fired_for(prompts, head, cache=cache, base=base) == _truth(prompts, head)
    other = _edited(random.Random(8), base)
    assert fired_for(prompts, base, cache=cache) == _truth(prompts, base)
    assert fired_for(prompts, other, cache=cache, base=base) == _truth(prompts, other)


def test_word_postings_are_the_prompts_tokens(tmp_path: Path) -> None:
    prompts = ["Convert 20 EUR to USD please", "", "what day is it?", "convert dates"]
    cache = ParsedCache(tmp_path / "home")
    for _ in range(2):  # cold, then from the cache
        postings = word_postings(prompts, cache)
        for word in {w for p in prompts for w in tokens(p)}:
            assert holding(postings, [word]) == {i for i, p in enumerate(prompts) if word in tokens(p)}
    assert holding(postings, ["convert", "day"]) == {0, 2, 3}


def test_nothing_is_reused_when_the_skill_set_or_who_may_fire_changes() -> None:
    skills = random_skills(random.Random(3), most=12)
    name = sorted(skills)[0]
    fewer = {k: v for k, v in skills.items() if k != name}
    flipped = {**skills, name: skills[name].model_copy(update={"model_invocable": not skills[name].model_invocable})}
    assert moved_words(skills, fewer) is None
    assert moved_words(skills, flipped) is None
    assert moved_words(skills, skills) == set()


def test_an_edit_no_prompt_can_feel_builds_no_base_index_and_stores_the_base_answers(tmp_path: Path) -> None:
    rng = random.Random(11)
    base = random_skills(rng, most=20)
    name = sorted(base)[0]
    head = {**base, name: base[name].model_copy(update={"description": base[name].description + " zyzzyva"})}
    prompts = random_prompts(rng, base)
    cache = ParsedCache(tmp_path / "home")
    trigger._cache.clear()
    assert fired_for(prompts, head, cache=cache, base=base) == _truth(prompts, head)
    assert len(trigger._cache) == 1  # only the head's: no prompt holds "zyzzyva", so each fires as at the base
    trigger._cache.clear()
    stored = fired_for(prompts, base, cache=cache)
    assert not trigger._cache  # the base's answers came from the cache: no index was built
    assert stored == _truth(prompts, base)
