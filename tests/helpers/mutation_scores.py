"""Mutation scores as `ratchet mutate` saves them beside the goldens (ratchet.goldens.mutation), made by hand."""

from __future__ import annotations

from ratchet.goldens.mutation import ClassKills, MutationScore, Survivor

BASE = "c0ffee" * 6 + "c0ff"


def blind_score(skill: str) -> MutationScore:
    """Two mutants checked (R1 and R5), none killed: the goldens noticed neither."""
    return MutationScore(
        skill=skill,
        base=BASE,
        seed=0,
        simulated=True,
        killed=0,
        checked=2,
        by_class=[
            ClassKills(mutant_class="R1", killed=0, checked=1),
            ClassKills(mutant_class="R5", killed=0, checked=1),
        ],
        survivors=[
            Survivor(id=f"{skill}/delete-step-1", mutant_class="R1", description="deletes step 2 (SKILL.md:12)"),
            Survivor(id=f"{skill}/broaden-description-1", mutant_class="R5", description="broadens the description"),
        ],
    )


def good_score(skill: str) -> MutationScore:
    """21 of 24 killed: the docs' example."""
    return MutationScore(
        skill=skill,
        base=BASE,
        seed=0,
        simulated=True,
        killed=21,
        checked=24,
        by_class=[
            ClassKills(mutant_class="R1", killed=8, checked=9),
            ClassKills(mutant_class="R2", killed=3, checked=3),
            ClassKills(mutant_class="R3", killed=3, checked=3),
            ClassKills(mutant_class="R4", killed=3, checked=3),
            ClassKills(mutant_class="R5", killed=2, checked=3),
            ClassKills(mutant_class="R6", killed=2, checked=3),
        ],
        survivors=[
            Survivor(id=f"{skill}/delete-step-{n}", mutant_class=cls, description=f"survivor {n}")
            for n, cls in ((1, "R1"), (2, "R5"), (3, "R6"))
        ],
    )
