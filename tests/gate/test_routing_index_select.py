"""Selection through the routing index picks the same goldens, for the same reasons, as per-prompt routing did.

The oracle routes each task with the old matcher (tests/helpers/routing_oracle.py) and applies
select.py's rules as they were: over every bench edit and the repository's goldens, under both
routing modes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from ratchet.bench.data.dataset import read_edits
from ratchet.gate.select import affected_goldens, catalog_neighbours
from ratchet.goldens.tasks import Task, load_tasks
from ratchet.goldens.trace import Trace, load_goldens
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill, parse_skill_text
from tests.helpers.routing_oracle import old_ranked_scores

REPO = Path(__file__).resolve().parents[2]
BASE = load_skills(REPO / "skills")
TASKS = load_tasks(REPO / "bench/tasks.yaml")
GOLDENS = load_goldens(REPO / "goldens")
EDITS = list(read_edits(REPO / "bench/edits").values())


def _old_match(prompt: str, skills: Mapping[str, Skill]) -> str | None:
    return old_ranked_scores(prompt, skills).fired


def old_lexical(changed_skills: Sequence[str], head: Mapping[str, Skill]) -> list[tuple[str, str]]:
    changed = {skill_key(name) for name in changed_skills}
    out = []
    for task in TASKS:
        golden = GOLDENS.get(task.id)
        if golden is None:
            continue
        fired = optional_skill_key(golden.fired_skill)
        if fired is not None and fired in changed:
            out.append((task.id, "routed"))
        elif optional_skill_key(_old_match(task.prompt, head)) != fired:
            out.append((task.id, "trigger-neighbourhood"))
    return out


def old_model(
    changed_skills: Sequence[str], head: Mapping[str, Skill], base: Mapping[str, Skill], k: int
) -> list[tuple[str, str]]:
    changed = {skill_key(name) for name in changed_skills}
    near = catalog_neighbours(changed_skills, head, base, k)  # its own oracle: test_routing_index_catalog.py
    out = []
    for task in TASKS:
        golden: Trace | None = GOLDENS.get(task.id)
        if golden is None:
            continue
        owners = {optional_skill_key(golden.fired_skill), optional_skill_key(task.skill)} - {None}
        if owners & changed:
            out.append((task.id, "routed"))
        elif task.is_canary:
            out.append((task.id, "trigger-neighbourhood"))
        elif owners & near:
            out.append((task.id, "catalog-neighbour"))
        elif optional_skill_key(_old_match(task.prompt, base)) != optional_skill_key(_old_match(task.prompt, head)):
            out.append((task.id, "trigger-neighbourhood"))
    return out


def _picked(
    tasks: Sequence[Task], head: Mapping[str, Skill], changed: list[str], **kwargs: object
) -> list[tuple[str, str]]:
    return [(s.task.id, s.because) for s in affected_goldens(tasks, GOLDENS, changed, head, **kwargs)]  # type: ignore[arg-type]


def test_the_repository_has_goldens_and_edits_to_select_over() -> None:
    assert len(GOLDENS) > 50 and len(EDITS) > 100


@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e.id)
def test_every_bench_edit_selects_as_before(edit) -> None:  # type: ignore[no-untyped-def]
    head = {**BASE, edit.skill: parse_skill_text(edit.skill_md, folder=REPO / "skills" / edit.skill, source=edit.id)}
    assert _picked(TASKS, head, [edit.skill]) == old_lexical([edit.skill], head)
    assert _picked(TASKS, head, [edit.skill], routing="model", base_skills=BASE, neighbours=2) == old_model(
        [edit.skill], head, BASE, 2
    )


def test_the_edits_move_routing_so_the_comparison_has_teeth() -> None:
    moved = 0
    for edit in EDITS:
        head = {
            **BASE,
            edit.skill: parse_skill_text(edit.skill_md, folder=REPO / "skills" / edit.skill, source=edit.id),
        }
        moved += sum(because == "trigger-neighbourhood" for _, because in _picked(TASKS, head, [edit.skill]))
    assert moved > 20
