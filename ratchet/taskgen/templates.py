"""Task templates: task_templates.yaml beside tasks.yaml, a prompt with slots and the knobs a generator turns.

A template names its skill, a prompt with `{slot}` fields, where each slot's values come from (a list, or rows
of the world at a path), and knobs: `horizon` (how many items of the `items` slot one task names),
`distractors` (how many decoy items, real rows of the same pool, the prompt mentions through the
`distractor` phrase) and `edge_case` (one item drawn from the `edge` values instead: a row that is not there,
a closed one). Everything is checked when the file is read, so a bad template is one line naming it.
docs/tasks-generate.md describes the file; docs/adr/ says why.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, ValidationError

from ratchet.core.errors import InputError
from ratchet.core.ids import IdKind, check_id
from ratchet.core.yamlio import load_yaml_text_with_lines

TEMPLATES_FILE = "task_templates.yaml"
TEMPLATES_SCHEMA_VERSION = 1
MAX_TEMPLATE_ID_CHARS = 48
"""A generated task id is the template's id plus at most 32 characters of knobs, seed and variant (ids: 80)."""

Scalar = str | int | float | bool


class Item(BaseModel):
    """One value a slot draws: as the slot holds it (a list entry, a world field) and as the prompt shows it."""

    model_config = ConfigDict(frozen=True)

    value: Scalar
    shown: str


class WorldSlot(BaseModel):
    """A slot whose values are rows of the world: the list (or mapping's keys) at `world`, optionally one field."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    world: list[str] = Field(
        min_length=1, description="Keys from the world's top, e.g. [github, repos, acme/widgets, issues]."
    )
    field: str | None = Field(default=None, description="The field of each row to take (rows are mappings).")
    where: dict[str, Scalar] = Field(default_factory=dict, description="Keep only rows with these field values.")
    format: str = Field(default="{}", description="How a value reads in the prompt, e.g. '#{}'.")


class Knobs(BaseModel):
    """The grid the generator walks: every combination of these values, `variants` tasks each."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Strict: `true` is no horizon and "yes" no edge_case; a value written loosely is refused, not converted.
    horizon: list[StrictInt] = Field(default=[1], min_length=1)
    distractors: list[StrictInt] = Field(default=[0], min_length=1)
    edge_case: list[StrictBool] = Field(default=[False], min_length=1)


class Template(BaseModel):
    """One template of one skill's tasks."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    skill: str
    prompt: str = Field(min_length=1)
    workspace: str | None = None
    slots: dict[str, list[Scalar] | WorldSlot] = Field(default_factory=dict)
    items: str | None = Field(default=None, description="The slot horizon, distractors and edge_case act on.")
    join: str = " and "
    distractor: str | None = Field(default=None, description="A phrase per decoy item, naming it with {<items>}.")
    edge: list[Scalar] = Field(default_factory=list, description="Values of the items slot for edge_case: true.")
    edge_note: str = ""
    knobs: Knobs = Field(default_factory=Knobs)
    variants: StrictInt = Field(default=1, ge=1, le=20, description="Tasks per knob combination.")


class TemplateFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    schema_version: int = TEMPLATES_SCHEMA_VERSION
    templates: list[Template]


def templates_path(tasks_file: Path) -> Path:
    """Where a project's templates live: beside its tasks.yaml."""
    return tasks_file.parent / TEMPLATES_FILE


def _fields(text: str) -> list[str]:
    """The `{name}` fields of a prompt; a format spec, conversion or positional field is refused."""
    names: list[str] = []
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"{{{name}}} is not a slot: write a slot as {{name}}, a literal brace as {{{{ or }}}}")
        names.append(name)
    return names


def _format_fields(text: str) -> list[str]:
    try:
        parsed = string.Formatter().parse(text)
        return [name + (spec or "") + (conversion or "") for _, name, spec, conversion in parsed if name is not None]
    except ValueError:
        return ["?"]


def _problem(template: Template) -> str | None:
    """Why a parsed template cannot be used (one clause), or None."""
    knobs = template.knobs
    try:
        used = set(_fields(template.prompt))
        used_by_decoy = set(_fields(template.distractor)) if template.distractor is not None else set()
    except ValueError as exc:
        return str(exc)
    for name in sorted((used | used_by_decoy) - set(template.slots)):
        return f"{{{name}}} is not one of its slots ({', '.join(sorted(template.slots)) or 'none'})"
    for name in sorted(set(template.slots) - used):
        return f"slot {name} is not used in its prompt"
    for name, slot in sorted(template.slots.items()):
        if isinstance(slot, WorldSlot) and _format_fields(slot.format) != [""]:
            return f"slot {name}: format must hold one {{}} and nothing else in braces, not {slot.format!r}"
    for knob in ("horizon", "distractors", "edge_case"):
        values: list[Scalar] = getattr(knobs, knob)
        for value in values:
            if values.count(value) > 1:  # two cells would draw the same ids, and one would drop the other
                return f"knobs: {knob} lists {value} twice"
    if any(h < 1 for h in knobs.horizon) or any(d < 0 for d in knobs.distractors):
        return "knobs: horizon must be 1 or more and distractors 0 or more"
    if template.items is None and (max(knobs.horizon) > 1 or max(knobs.distractors) > 0 or any(knobs.edge_case)):
        return (
            "its knobs name items (horizon > 1, distractors or edge_case), so it needs `items:`, the slot they act on"
        )
    if template.items is not None and template.items not in used:
        return f"items: {template.items} is not a slot its prompt uses"
    if max(knobs.distractors) > 0 and (template.distractor is None or template.items not in used_by_decoy):
        return f"distractors need a `distractor:` phrase that names {{{template.items}}}"
    if any(knobs.edge_case) and not template.edge:
        return "edge_case: true needs `edge:` values for its items slot"
    return None


def parse_templates(text: str, *, source: str) -> list[Template]:
    """Every template in a task_templates.yaml; InputError naming the file and line of the first bad one."""
    raw, lines = load_yaml_text_with_lines(text, list_key="templates", source=source, error=InputError)
    if not isinstance(raw, dict) or not isinstance(raw.get("templates"), list):
        raise InputError("expected a mapping with a 'templates' list", path=source, line=1)
    if raw.get("schema_version", TEMPLATES_SCHEMA_VERSION) != TEMPLATES_SCHEMA_VERSION:
        raise InputError(f"unsupported schema_version {raw.get('schema_version')!r}", path=source)
    try:
        parsed = TemplateFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = first["loc"]
        line = lines[loc[1]] if len(loc) >= 2 and isinstance(loc[1], int) and loc[1] < len(lines) else None
        raise InputError(f"{'.'.join(str(p) for p in loc)}: {first['msg']}", path=source, line=line) from None
    seen: set[str] = set()
    for index, template in enumerate(parsed.templates):
        line = lines[index] if index < len(lines) else None
        check_id(IdKind.TASK, template.id, path=source, line=line)
        check_id(IdKind.SKILL, template.skill, path=source, line=line)
        if template.workspace is not None:
            check_id(IdKind.WORKSPACE, template.workspace, path=source, line=line)
        if len(template.id) > MAX_TEMPLATE_ID_CHARS:
            raise InputError(
                f"template id {template.id!r} is longer than {MAX_TEMPLATE_ID_CHARS} characters", path=source, line=line
            )
        if template.id in seen:
            raise InputError(f"duplicate template id {template.id!r}", path=source, line=line)
        seen.add(template.id)
        if (problem := _problem(template)) is not None:
            raise InputError(f"template {template.id}: {problem}", path=source, line=line)
    return parsed.templates


def load_templates(path: Path) -> tuple[list[Template], list[int]]:
    """The templates in a file, and the line each starts on (for errors found later, against the world)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(
            "file not found: write the skill's task templates here (docs/tasks-generate.md)", path=path
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=path) from None
    templates = parse_templates(text, source=str(path))
    _, lines = load_yaml_text_with_lines(text, list_key="templates", source=str(path), error=InputError)
    return templates, lines


def slot_values(slot: list[Scalar] | WorldSlot, world: dict[str, Any]) -> list[Item]:
    """The values a slot draws from, each once (by how it reads in the prompt), in the file's or world's order.

    ValueError (one clause) when the world path or field is not there, or a row is no plain value.
    """
    if isinstance(slot, list):
        return _distinct([Item(value=value, shown=str(value)) for value in slot])
    where = ".".join(slot.world)
    node: Any = world
    for depth, key in enumerate(slot.world):
        if not isinstance(node, dict) or key not in node:
            raise ValueError(f"world path {'.'.join(slot.world[: depth + 1])} is not in the world")
        node = node[key]
    rows = list(node) if isinstance(node, dict) else node
    if not isinstance(rows, list):
        raise ValueError(f"world path {where} holds no list or mapping")
    items: list[Item] = []
    for row in rows:
        if slot.where and not (isinstance(row, dict) and all(row.get(k) == v for k, v in slot.where.items())):
            continue
        if slot.field is not None:
            if not isinstance(row, dict) or slot.field not in row:
                raise ValueError(f"a row at world path {where} has no field {slot.field}")
            row = row[slot.field]
        elif isinstance(row, dict):
            raise ValueError(
                f"the rows at world path {where} are mappings, not values: name one of their fields with `field:`"
            )
        if not isinstance(row, str | int | float | bool):
            # A list's or mapping's Python text in a prompt reads as nothing a user would write.
            raise ValueError(f"a value at world path {where} is a {type(row).__name__}, not a plain value")
        items.append(Item(value=row, shown=slot.format.format(row)))
    return _distinct(items)


def _distinct(items: list[Item]) -> list[Item]:
    """Each value once, first place kept: a pool that repeats a value would draw it twice into one task."""
    distinct: dict[str, Item] = {}
    for item in items:
        distinct.setdefault(item.shown, item)
    return list(distinct.values())
