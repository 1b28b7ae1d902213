"""Select: which blessed goldens can an edit affect?

Under `routing: lexical` (the default), two reasons: the golden's task was routed to an edited
skill, or the task's routing changes under the edited skill set (the trigger neighbourhood: a
broadened description stealing a task or a canary, a narrowed one dropping its own tasks).

Under `routing: model` the model routes by reading the catalog, which the lexical matcher does
not predict, so selection replays more: the edited skill's tasks (the golden fired it, or
tasks.yaml expects it), every canary, the tasks of the k skills whose descriptions are nearest
the edited skill's base or head description (catalog neighbours: a description broadened into
words no prompt uses can still pull their tasks), and any task whose lexical routing moves
between base and head.

Routing reads one index per skill set (trigger.routing_index), built once and shared with the
runner's replays, so selection costs each task's words rather than tasks x skills.

Skills are compared by identity (ratchet.skills.names.skill_key, NFKC), not spelling: a changed folder
spelled with a fullwidth f (U+FF46) is the skill the goldens recorded as `fx-expense-converter`.

A change of the agent (its model, parameters or harness) is no edit to a skill and moves every golden:
`every_golden` selects them all (ratchet.gate.model_change samples them under a budget).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.agent.catalog import model_invocable, nearest_skills
from ratchet.agent.routed import fired_for
from ratchet.agent.trigger import routing_index
from ratchet.config.project import DEFAULT_ROUTING_NEIGHBOURS, Routing
from ratchet.gate.models import Selected, SelectedBecause
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.skills.names import optional_skill_key, skill_key
from ratchet.skills.skill import Skill
from ratchet.store.parsed import ParsedCache


def affected_goldens(
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    changed_skills: Sequence[str],
    head_skills: Mapping[str, Skill],
    *,
    routing: Routing = "lexical",
    base_skills: Mapping[str, Skill] | None = None,
    neighbours: int = DEFAULT_ROUTING_NEIGHBOURS,
    cache: ParsedCache | None = None,
) -> list[Selected]:
    """Goldens to replay, in task order. Tasks without a golden are not checked.

    `neighbours` (k) matters only under routing: model. Under lexical routing, `cache` (the work area's
    ratchet.store.parsed) lets a fresh process route only the prompts an edit can move
    (ratchet.agent.routed, from the answers of `base_skills`); the selection is the same without it.
    """
    if routing == "model":
        return _catalog_selection(tasks, goldens, changed_skills, head_skills, base_skills or {}, neighbours)
    changed = {skill_key(name) for name in changed_skills}
    routed = [task for task in tasks if task.id in goldens]
    at_head = fired_for([task.prompt for task in routed], head_skills, cache=cache, base=base_skills)
    selected: list[Selected] = []
    for task, now in zip(routed, at_head, strict=True):
        golden = goldens[task.id]
        recorded = golden.fired_skill
        fired = optional_skill_key(recorded)
        if fired is not None and fired in changed:
            selected.append(Selected(task=task, golden=golden, because="routed"))
        elif now != recorded and optional_skill_key(now) != fired:  # equal spellings are one skill: no NFKC needed
            selected.append(Selected(task=task, golden=golden, because="trigger-neighbourhood"))
    return selected


def every_golden(tasks: Sequence[Task], goldens: Mapping[str, Trace]) -> list[Selected]:
    """Every golden, in task order: a change of the agent (ratchet.gate.model_change) can move any of them."""
    return [Selected(task=t, golden=goldens[t.id], because="model-change") for t in tasks if t.id in goldens]


def catalog_neighbours(
    changed_skills: Sequence[str], head_skills: Mapping[str, Skill], base_skills: Mapping[str, Skill], k: int
) -> set[str]:
    """Skill keys of the k unchanged skills nearest each changed skill (its base or head description)."""
    changed = {skill_key(name) for name in changed_skills}
    candidates = {name: s for name, s in model_invocable(head_skills).items() if skill_key(name) not in changed}
    near: set[str] = set()
    for key in sorted(changed):
        versions = [s for skills in (base_skills, head_skills) for s in skills.values() if skill_key(s.name) == key]
        near.update(skill_key(name) for name in nearest_skills(versions, candidates, k))
    return near


def _catalog_selection(
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    changed_skills: Sequence[str],
    head_skills: Mapping[str, Skill],
    base_skills: Mapping[str, Skill],
    k: int,
) -> list[Selected]:
    changed = {skill_key(name) for name in changed_skills}
    near = catalog_neighbours(changed_skills, head_skills, base_skills, k)
    base, head = routing_index(base_skills), routing_index(head_skills)
    selected: list[Selected] = []
    for task in tasks:
        golden = goldens.get(task.id)
        if golden is None:
            continue
        owners = {optional_skill_key(golden.fired_skill), optional_skill_key(task.skill)} - {None}
        because: SelectedBecause | None = None
        if owners & changed:
            because = "routed"
        elif task.is_canary:
            because = "trigger-neighbourhood"
        elif owners & near:
            because = "catalog-neighbour"
        elif base_skills and optional_skill_key(base.fired(task.prompt)) != optional_skill_key(head.fired(task.prompt)):
            because = "trigger-neighbourhood"
        if because is not None:
            selected.append(Selected(task=task, golden=golden, because=because))
    return selected
