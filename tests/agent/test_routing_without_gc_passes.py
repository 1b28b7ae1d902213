"""Routing every prompt (routed.fired_for) starts no cyclic-collector pass (ratchet.core.gcpause).

Why: at 10,000 goldens one full collection took ~130 ms of a cold first selection.
"""

from __future__ import annotations

import random
from pathlib import Path

from ratchet.agent import trigger
from ratchet.agent.routed import fired_for
from ratchet.store.parsed import ParsedCache
from tests.helpers.gc_passes import assert_no_passes
from tests.helpers.routing_oracle import random_prompts, random_skills


def test_routing_every_prompt_starts_no_collection(tmp_path: Path) -> None:
    rng = random.Random(29)
    base = random_skills(rng, most=12)
    name = sorted(base)[0]
    head = {**base, name: base[name].model_copy(update={"description": base[name].description + " rosters"})}
    prompts = [f"{prompt} w{n}" for n in range(20) for prompt in random_prompts(rng, base)]  # every word set new
    trigger._cache.clear()
    assert_no_passes(lambda: fired_for(prompts, head, cache=ParsedCache(tmp_path / "home"), base=base))
    trigger._cache.clear()
    assert_no_passes(lambda: fired_for(prompts, head))
