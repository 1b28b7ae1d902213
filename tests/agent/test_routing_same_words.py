"""Prompts with the same word set share one routing answer (RoutingIndex keeps it), and it is the oracle's.

Why: a task file's templated prompts differ in numbers, stopwords or word order only; the index scores
such a set once. Each prompt here is routed after another with its words, so the answer comes from the
shared one, and must still be what the old per-prompt matcher answers for that very prompt.
"""

from __future__ import annotations

import random

from ratchet.agent.trigger import RoutingIndex, tokens
from tests.helpers.routing_oracle import old_ranked_scores, random_prompts, random_skills


def _same_words(rng: random.Random, prompt: str) -> list[str]:
    words = prompt.split()
    shuffled = rng.sample(words, len(words))
    return [f"{prompt} 42", f"The {prompt}, please: 7", " ".join(shuffled), prompt.upper()]


def test_prompts_sharing_their_words_fire_what_the_oracle_fires() -> None:
    rng = random.Random(2929)
    shared = 0
    for _ in range(40):
        skills = random_skills(rng, most=16)
        index = RoutingIndex(skills)
        for prompt in random_prompts(rng, skills):
            for variant in [prompt, *_same_words(rng, prompt)]:
                assert index.fired(variant) == old_ranked_scores(variant, skills).fired, variant
                assert index.fired(variant, tokens(variant)) == index.fired(variant)
                shared += variant != prompt and set(tokens(variant)) == set(tokens(prompt))
    assert shared > 500
