"""The lexical matcher as it was before the routing index, and seeded random skill sets: the oracle.

Why here: the index must answer exactly what this code answered (tests/agent/test_routing_index*.py,
tests/gate/test_routing_index_select.py), and benchmarks/selection_scaling.py times it against
the index. It is kept nowhere in the package.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

from ratchet.agent.trigger import MARGIN, THRESHOLD, Ranking, tokens, trigger_text
from ratchet.skills.skill import Skill


def _old_skill_terms(skill: Skill) -> set[str]:
    return set(tokens(skill.name.replace("-", " ") + " " + skill.description))


def old_route_scores(prompt: str, skills: Mapping[str, Skill]) -> dict[str, float]:
    terms = {name: _old_skill_terms(skill) for name, skill in skills.items()}
    count = len(terms)
    words = set(tokens(prompt))
    if not words or not count:
        return {name: 0.0 for name in sorted(skills)}

    def idf(word: str) -> float:
        df = sum(1 for t in terms.values() if word in t)
        return math.log(1.0 + (count + 1) / (df + 1))

    weights = {w: idf(w) for w in words}
    total = sum(weights.values())
    return {name: round(sum(weights[w] for w in words & terms[name]) / total, 6) for name in sorted(terms)}


def old_ranked_scores(prompt: str, skills: Mapping[str, Skill]) -> Ranking:
    ranked = sorted(old_route_scores(prompt, skills).items(), key=lambda item: (-item[1], item[0]))
    eligible = [(name, score) for name, score in ranked if skills[name].model_invocable]
    if not eligible:
        return Ranking(ranked=ranked, best=None, score=0.0, margin=0.0, fired=None)
    best, score = eligible[0]
    margin = round(score - eligible[1][1], 6) if len(eligible) > 1 else score
    clears = score >= THRESHOLD and (len(eligible) == 1 or score - eligible[1][1] >= MARGIN)
    return Ranking(ranked=ranked, best=best, score=score, margin=margin, fired=best if clears else None)


# Few words, so skills share terms and scores tie; stopwords, stems that collide (issue/issues),
# digits, capitals and punctuation, so tokenizing matters.
_VOCAB = (
    "issue",
    "issues",
    "triage",
    "label",
    "labels",
    "convert",
    "converting",
    "converted",
    "invoice",
    "invoices",
    "pdf",
    "csv",
    "clean",
    "cleaner",
    "meeting",
    "notes",
    "summary",
    "summarize",
    "calendar",
    "schedule",
    "scheduling",
    "expense",
    "expenses",
    "report",
    "changelog",
    "release",
    "version",
    "dependency",
    "update",
    "updates",
    "rate",
    "rates",
    "fx",
    "eur",
    "gbp",
    "usd",
    "the",
    "and",
    "of",
    "to",
    "a",
    "an",
    "please",
    "make",
    "sure",
    "like",
    "github",
    "repo",
    "repos",
    "x",
    "y",
    "2fa",
    "v2",
    "OAuth",
    "JSON",
)


def random_text(rng: random.Random, low: int, high: int) -> str:
    words = [rng.choice(_VOCAB) for _ in range(rng.randint(low, high))]
    seps = [rng.choice((" ", " ", ", ", ". ", "-", " (", ") ")) for _ in words]
    return "".join(w + s for w, s in zip(words, seps, strict=True)).strip()


def random_skills(rng: random.Random, most: int = 14) -> dict[str, Skill]:
    """Up to `most` skills over a small vocabulary (past 16 or so, common terms form the index's groups)."""
    skills: dict[str, Skill] = {}
    shared = random_text(rng, 1, 12)
    for n in range(rng.randint(0, most)):
        name = f"{rng.choice(_VOCAB).lower()}-{rng.choice(_VOCAB).lower()}-{n}"
        description = shared if rng.random() < 0.15 else random_text(rng, 0, 25)  # identical ones tie
        key = name if rng.random() < 0.9 else f"key-{n}"  # the mapping's key need not be the skill's name
        skills[key] = Skill(
            name=name,
            description=description,
            body="",
            folder=name,
            content_hash=f"c{n}",
            substance_hash=f"s{n}",
            model_invocable=rng.random() < 0.8,
        )
    return skills


def random_prompts(rng: random.Random, skills: Mapping[str, Skill]) -> list[str]:
    prompts = [random_text(rng, 0, 30) for _ in range(6)]
    prompts += [trigger_text(s) for s in list(skills.values())[:3]]  # a description as the prompt
    return [*prompts, ""]
