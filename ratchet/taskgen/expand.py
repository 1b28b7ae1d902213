"""Expand templates into tasks: every knob combination, drawn from a seed derived from ids, never the clock.

A task's draw depends only on (template id, horizon, distractors, edge_case, variant, seed): the same file,
world and seed give byte-identical tasks on every machine, and adding a template changes no other's tasks.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import InputError
from ratchet.core.ids import IdKind, derived_seed, id_problem
from ratchet.goldens.tasks import Task
from ratchet.taskgen.templates import Item, Template, WorldSlot, slot_values


class Generated(BaseModel):
    """One generated task and the knobs it was drawn with."""

    model_config = ConfigDict(frozen=True)

    task: Task
    template: str
    horizon: int
    distractors: int
    edge_case: bool
    variant: int = Field(description="1-based, within its knob combination.")
    seed: int
    items: list[Item] = Field(default_factory=list, description="The items the prompt names (the audit checks each).")
    decoys: list[Item] = Field(default_factory=list, description="The decoys it mentions (to be left alone).")


def task_id(template: Template, horizon: int, distractors: int, edge_case: bool, variant: int, seed: int) -> str:
    """`<template>-h<horizon>d<distractors>[e]-s<seed>-<variant>`: readable, and unique per draw."""
    return f"{template.id}-h{horizon}d{distractors}{'e' if edge_case else ''}-s{seed}-{variant}"


def _listed(items: Sequence[str], join: str) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + join + items[-1]


def _pools(template: Template, world: dict[str, Any], *, source: str, line: int | None) -> dict[str, list[Item]]:
    pools: dict[str, list[Item]] = {}
    for name, slot in sorted(template.slots.items()):
        try:
            pools[name] = slot_values(slot, world)
        except ValueError as exc:
            raise InputError(f"template {template.id}: slot {name}: {exc}", path=source, line=line) from None
        if not pools[name]:
            raise InputError(f"template {template.id}: slot {name} has no values", path=source, line=line)
    knobs = template.knobs
    if template.items is not None:
        # Distinct items and decoys come from one pool: a grid cell it cannot fill is the template's error.
        needed = max(knobs.horizon) + max(knobs.distractors)
        if len(pools[template.items]) < needed:
            raise InputError(
                f"template {template.id}: slot {template.items} has {len(pools[template.items])} value(s); "
                f"horizon {max(knobs.horizon)} plus distractors {max(knobs.distractors)} need {needed}",
                path=source,
                line=line,
            )
        pool = {item.shown for item in pools[template.items]}
        for edge in _edge_values(template):
            if edge.shown in pool:  # an "edge case" the world holds would be an ordinary item
                raise InputError(
                    f"template {template.id}: edge value {edge.value} is also a value of slot {template.items}: "
                    "an edge case must be a value it does not hold",
                    path=source,
                    line=line,
                )
    return pools


def _edge_values(template: Template) -> list[Item]:
    slot = template.slots[template.items] if template.items is not None else None
    shown = slot.format if isinstance(slot, WorldSlot) else "{}"
    return [Item(value=value, shown=shown.format(value)) for value in template.edge]


def _draw(
    template: Template, pools: dict[str, list[Item]], cell: tuple[int, int, bool], rng: random.Random
) -> tuple[str, list[Item], list[Item]]:
    """The prompt of one grid cell, the items it names and the decoys it mentions."""
    horizon, distractors, edge_case = cell
    values = {name: rng.choice(pool).shown for name, pool in pools.items() if name != template.items}
    if template.items is None:
        return template.prompt.format_map(values), [], []
    pool = pools[template.items]
    chosen = rng.sample(pool, horizon - 1 if edge_case else horizon)
    if edge_case:  # one of the items is the edge case, at a drawn place
        chosen.insert(rng.randrange(horizon), rng.choice(_edge_values(template)))
    decoys = rng.sample([item for item in pool if item not in chosen], distractors)
    listed = _listed([item.shown for item in chosen], template.join)
    prompt = template.prompt.format_map({**values, template.items: listed})
    phrases = [(template.distractor or "").format_map({**values, template.items: decoy.shown}) for decoy in decoys]
    return " ".join([prompt, *phrases]), chosen, decoys


def expand(
    templates: Sequence[Template], world: dict[str, Any], *, seed: int, source: str, lines: Sequence[int] = ()
) -> list[Generated]:
    """Every task the templates generate for `seed`, in file order, then horizon, distractors, edge_case, variant."""
    out: list[Generated] = []
    for index, template in enumerate(templates):
        line = lines[index] if index < len(lines) else None
        pools = _pools(template, world, source=source, line=line)
        knobs = template.knobs
        for horizon, distractors, edge_case in itertools.product(knobs.horizon, knobs.distractors, knobs.edge_case):
            for variant in range(1, template.variants + 1):
                rng = random.Random(
                    derived_seed("taskgen", template.id, horizon, distractors, edge_case, variant, seed)
                )
                prompt, items, decoys = _draw(template, pools, (horizon, distractors, edge_case), rng)
                tid = task_id(template, horizon, distractors, edge_case, variant, seed)
                if (problem := id_problem(IdKind.TASK, tid)) is not None:  # a huge --seed: caught before recording
                    raise InputError(f"template {template.id}: seed {seed} makes {problem}", path=source, line=line)
                note = f"generated from template {template.id}: horizon {horizon}, distractors {distractors}"
                note += f", edge case{': ' + template.edge_note if template.edge_note else ''}" if edge_case else ""
                task = Task(
                    id=tid,
                    prompt=prompt,
                    skill=template.skill,
                    workspace=template.workspace,
                    edge_case=edge_case,
                    notes=f"{note}; seed {seed}",
                )
                out.append(
                    Generated(
                        task=task,
                        template=template.id,
                        horizon=horizon,
                        distractors=distractors,
                        edge_case=edge_case,
                        variant=variant,
                        seed=seed,
                        items=items,
                        decoys=decoys,
                    )
                )
    return out
