"""The trigger decision holds its stated error rate: A/A comparisons with a model that fires a skill with
probability p BLOCK at most alpha of the time (a worse query or a worse family), and a real move (0.9 -> 0.2) is
caught (docs/adr/0025)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ratchet.config.project import Project, project_from_text
from ratchet.goldens.triggers import TriggerQuery
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.triggers.compare import Compared, compare
from ratchet.triggers.run import run_queries
from tests.helpers.trigger_models import FiresWithProbability

ALPHA = 0.05
COMPARISONS = 200
REPEATS = 10


def _skills() -> dict[str, Skill]:
    texts = {
        "triage": "---\nname: triage\ndescription: Label and triage GitHub issues.\n---\n# Triage\n",
        "readme": "---\nname: readme\ndescription: Summarise a repository's README.\n---\n# Readme\n",
    }
    return {name: parse_skill_text(text, folder=Path(name), source=f"{name}/SKILL.md") for name, text in texts.items()}


def _project(tmp_path: Path) -> Project:
    return project_from_text(tmp_path, "routing: model\n", source="ratchet.yaml", home=tmp_path / "home")


def _queries(tag: str) -> list[TriggerQuery]:
    return [
        TriggerQuery(id=f"{tag}:fire", prompt="Label issue 12 as a bug", skill="triage", should_fire=True, source="triggers"),
        TriggerQuery(id=f"{tag}:not", prompt="Summarise the README", skill="triage", should_fire=False, source="triggers"),
        TriggerQuery(id=f"{tag}:canary", prompt="What is 2 + 2?", skill=None, should_fire=False, source="triggers"),
    ]  # fmt: skip


def _family_queries(tag: str) -> list[TriggerQuery]:
    """Four should-fire and four should-not-fire queries about triage, and three canaries: three families."""
    fire = ["Label issue 12 as a bug", "Triage the new issue", "Assign issue 7 to its owner", "Tag issue 3"]
    not_fire = ["Summarise the README", "Read the changelog", "Count the stars", "List the contributors"]
    canary = ["What is 2 + 2?", "Say hello", "Name a colour"]
    return [
        *(TriggerQuery(id=f"{tag}:fire:{i}", prompt=p, skill="triage", should_fire=True, source="triggers") for i, p in enumerate(fire)),
        *(TriggerQuery(id=f"{tag}:not:{i}", prompt=p, skill="triage", should_fire=False, source="triggers") for i, p in enumerate(not_fire)),
        *(TriggerQuery(id=f"{tag}:canary:{i}", prompt=p, skill=None, should_fire=False, source="triggers") for i, p in enumerate(canary)),
    ]  # fmt: skip


def _compare(
    project: Project, queries: list[TriggerQuery], base: FiresWithProbability, head: FiresWithProbability
) -> Compared:
    skills = _skills()
    at_base = run_queries(queries, skills, project=project, model=base, repeats=REPEATS)
    at_head = run_queries(queries, skills, project=project, model=head, repeats=REPEATS)
    return compare(at_base, at_head, alpha=ALPHA)


def _a_a(project: Project, queries: Callable[[str], list[TriggerQuery]], repeats: int) -> tuple[int, int]:
    """(comparisons that BLOCKed: a worse query or family, comparisons that tested a family as its own hypothesis)."""
    blocked = families = 0
    for n in range(COMPARISONS):
        p = (0.1, 0.3, 0.5, 0.7, 0.9)[n % 5]
        base = FiresWithProbability(p, "triage", salt=f"{n}:base")
        head = FiresWithProbability(p, "triage", salt=f"{n}:head")
        skills = _skills()
        at_base = run_queries(queries(f"aa{n}"), skills, project=project, model=base, repeats=repeats)
        at_head = run_queries(queries(f"aa{n}"), skills, project=project, model=head, repeats=repeats)
        compared = compare(at_base, at_head, alpha=ALPHA)
        blocked += any(c.outcome == "worse" for c in compared.queries) or any(
            f.outcome == "worse" for f in compared.families
        )
        families += bool(compared.families)
    return blocked, families


def test_a_a_comparisons_block_at_most_alpha_of_the_time(tmp_path: Path) -> None:
    blocked, _ = _a_a(_project(tmp_path), _queries, REPEATS)
    rate = blocked / COMPARISONS
    assert rate <= ALPHA, f"false BLOCK rate {rate:.3f} ({blocked} of {COMPARISONS} A/A comparisons) > alpha {ALPHA}"
    print(f"A/A: {blocked} of {COMPARISONS} comparisons BLOCKed (rate {rate:.3f}, alpha {ALPHA}, N={REPEATS})")


def test_a_a_comparisons_with_families_block_at_most_alpha_of_the_time(tmp_path: Path) -> None:
    """Eleven queries in three families (triage should fire, should not fire, the canaries) at the default 5
    repeats: the queries and the families are one Holm correction, so a false BLOCK of either stays under alpha."""
    blocked, families = _a_a(_project(tmp_path), _family_queries, 5)
    rate = blocked / COMPARISONS
    assert families >= 0.9 * COMPARISONS  # nearly every comparison tested a family: the test is exercised
    assert rate <= ALPHA, f"false BLOCK rate {rate:.3f} ({blocked} of {COMPARISONS} A/A comparisons) > alpha {ALPHA}"
    print(
        f"A/A with families: {blocked} of {COMPARISONS} comparisons BLOCKed (rate {rate:.3f}, alpha {ALPHA}, N=5; "
        f"{families} tested a family)"
    )


def test_a_real_drop_on_a_should_fire_query_is_r6_and_a_rise_on_a_should_not_fire_one_is_r5(tmp_path: Path) -> None:
    project = _project(tmp_path)
    fire, not_fire, _ = _queries("power")
    [dropped] = _compare(
        project, [fire], FiresWithProbability(0.9, "triage", salt="b"), FiresWithProbability(0.2, "triage", salt="h")
    ).queries
    [rose] = _compare(
        project,
        [not_fire],
        FiresWithProbability(0.2, "triage", salt="b"),
        FiresWithProbability(0.9, "triage", salt="h"),
    ).queries
    assert (dropped.outcome, dropped.regression) == ("worse", "R6"), dropped
    assert (rose.outcome, rose.regression) == ("worse", "R5"), rose
    assert dropped.base_fires > dropped.head_fires and rose.head_fires > rose.base_fires


def test_a_drop_over_every_should_fire_query_at_five_repeats_is_caught_as_a_family(tmp_path: Path) -> None:
    """0.9 -> 0.3 on four should-fire queries at 5 runs a side: too few runs for most queries alone, one family."""
    compared = _compare(
        _project(tmp_path),
        _family_queries("power")[:4],
        FiresWithProbability(0.9, "triage", salt="b"),
        FiresWithProbability(0.3, "triage", salt="h"),
    )
    [family] = compared.families
    assert (family.outcome, family.regression) == ("worse", "R6"), (family, compared.queries)
