"""catalog.nearest_skills, now fed tokens text_tokens remembers, ranks exactly as when it tokenized each call.

The old body (TfidfVectorizer over the raw text with `tokens` as analyzer) is the oracle here.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from ratchet.agent.catalog import model_invocable, nearest_skills
from ratchet.agent.trigger import tokens
from ratchet.bench.data.dataset import read_edits
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text
from tests.helpers.routing_oracle import random_skills

REPO = Path(__file__).resolve().parents[2]


def old_nearest_skills(edited: Sequence[Skill], candidates: Mapping[str, Skill], k: int) -> list[str]:
    names = sorted(candidates)
    if k <= 0 or not names or not edited:
        return []
    from sklearn.feature_extraction.text import TfidfVectorizer

    def text(skill: Skill) -> str:
        return f"{skill.name.replace('-', ' ')} {skill.description}"

    documents = [text(candidates[name]) for name in names] + [text(s) for s in edited]
    try:
        matrix = TfidfVectorizer(analyzer=tokens).fit_transform(documents)
    except ValueError:
        return names[:k]
    similarity = (matrix[len(names) :] @ matrix[: len(names)].T).toarray()
    best = {name: round(float(similarity[:, i].max()), 9) for i, name in enumerate(names)}
    return sorted(names, key=lambda name: (-best[name], name))[:k]


def test_every_bench_edit_has_the_same_catalog_neighbours() -> None:
    base = load_skills(REPO / "skills")
    edits = list(read_edits(REPO / "bench/edits").values())
    assert len(edits) > 100
    for edit in edits:
        edited = parse_skill_text(edit.skill_md, folder=REPO / "skills" / edit.skill, source=edit.id)
        candidates = {n: s for n, s in model_invocable({**base, edit.skill: edited}).items() if n != edit.skill}
        for k in (1, 3, 20):
            assert nearest_skills([base[edit.skill], edited], candidates, k) == old_nearest_skills(
                [base[edit.skill], edited], candidates, k
            )


@pytest.mark.parametrize("seed", range(100))
def test_random_skill_sets_have_the_same_catalog_neighbours(seed: int) -> None:
    rng = random.Random(seed)
    skills = list(random_skills(rng).values())
    if not skills:
        return
    edited, candidates = skills[:1], {s.name: s for s in skills[1:]}
    for k in (0, 1, 2, 5):
        assert nearest_skills(edited, candidates, k) == old_nearest_skills(edited, candidates, k)
