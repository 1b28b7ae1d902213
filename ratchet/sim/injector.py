"""The offline injector: R1-R7 regressions from generic mutation templates over the skill convention.

It stands in for the injector model (prompts/inject_regression.md) when the upstream is
the simulator. Like a real model it sees only what it is given: the skill's SKILL.md, the tools
the world offers (names, effects, parameters) and the other skills' descriptions. Never tasks,
goldens or labels. Each proposal is seeded by (skill, type, variant, try) through hashlib, and
candidates already proposed for the same skill and type are skipped, so two variants differ.

    R1  change a comparison, an arithmetic operator, a number, a filter list or an ordering
        in an assignment or a condition of the Steps
    R2  drop one field of the Output section
    R3  change a literal (or variable) argument of a tool call
    R4  insert a step that makes a write/send/spend/destroy call the world offers
    R5  broaden the description with generic trigger words
    R6  narrow the description so it stops matching its own requests
    R7  delete a fault-handling step (a retry after a failed side-effecting call), or only the check
        made before that retry, so the call is retried blindly

The operators live in ratchet.sim.mutate_logic (R1-R3), ratchet.sim.mutate_scope (R4-R6) and
ratchet.sim.mutate_faults (R7), the helpers they share in ratchet.sim.mutate_common; this module is the entry point and re-exports the
public names.

Whether a proposal is kept (valid skill, same name, manifests) is decided by ratchet.bench.build.inject.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ratchet.sim.mutate_common import (
    Candidate,
    InjectContext,
    ToolInfo,
    description_of,
    sections,
    split_skill,
    with_description,
)
from ratchet.sim.mutate_faults import r7_candidates
from ratchet.sim.mutate_logic import r1_candidates, r2_candidates, r3_candidates
from ratchet.sim.mutate_scope import GENERIC_TRIGGERS, r4_candidates, r5_candidates, r6_candidates

__all__ = [
    "GENERIC_TRIGGERS",
    "REGRESSION_TYPES",
    "InjectContext",
    "Proposal",
    "ToolInfo",
    "candidates_for",
    "description_of",
    "propose",
    "sections",
    "seeded_rng",
    "split_skill",
    "with_description",
]

REGRESSION_TYPES = ("R1", "R2", "R3", "R4", "R5", "R6", "R7")


@dataclass(frozen=True)
class Proposal:
    """One proposed regression: the whole edited SKILL.md and what was done, for humans."""

    skill_md: str
    description: str
    key: str  # identifies the candidate, so later variants do not propose it again


def seeded_rng(skill: str, edit_type: str, variant: int, attempt: int) -> random.Random:
    """A generator seeded by (skill, type, variant, try) through sha256, never global state."""
    digest = hashlib.sha256(f"inject|{skill}|{edit_type}|{variant}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# --- entry point -----------------------------------------------------------------------------


def candidates_for(text: str, name: str, edit_type: str, context: InjectContext, rng: random.Random) -> list[Candidate]:
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    secs = sections(body)
    tools = {t.name: t for t in context.tools}
    steps = secs.get("steps", (0, 0))
    if edit_type == "R1":
        return r1_candidates(body, steps, frozenset(tools))
    if edit_type == "R2":
        return r2_candidates(body, secs.get("output", (0, 0)))
    if edit_type == "R3":
        return r3_candidates(body, steps, tools, rng)
    if edit_type == "R4":
        return r4_candidates(body, secs, context.tools) if "steps" in secs else []
    if edit_type == "R5":
        return r5_candidates(description_of(frontmatter), context, rng)
    if edit_type == "R6":
        return r6_candidates(description_of(frontmatter), name)
    if edit_type == "R7":
        return r7_candidates(body, text, context.tools)
    raise ValueError(f"not a regression type: {edit_type}")


def propose(
    text: str,
    *,
    name: str,
    edit_type: str,
    variant: int,
    attempt: int,
    context: InjectContext,
    exclude: frozenset[str] = frozenset(),
) -> Proposal | None:
    """One seeded proposal for (skill, type, variant, try), skipping keys in `exclude`; None if none left."""
    rng = seeded_rng(name, edit_type, variant, attempt)
    pool = [c for c in candidates_for(text, name, edit_type, context, rng) if c.key not in exclude]
    if not pool:
        return None
    chosen = pool[rng.randrange(len(pool))]
    frontmatter, body_text = split_skill(text)
    if chosen.new_description is not None:
        return Proposal(
            with_description(frontmatter, chosen.new_description) + body_text, chosen.description, chosen.key
        )
    return Proposal(frontmatter + "\n".join(chosen.lines), chosen.description, chosen.key)
