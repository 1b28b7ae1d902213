"""The mutation operators: deterministic, model-free breakages of one skill folder, each labeled with the
regression class it stands for (R1-R6, the benchmark's taxonomy). `ratchet mutate` replays each through
the normal check and scores the goldens by how many they notice.

Which operators run depends on how the skill is written:

- a skill in the simulator's convention (ratchet.sim.follow says it can follow it) gets the program
  operators (ratchet/mutate/program_ops.py: the benchmark's offline injector, a deleted step, a negated
  condition), so every mutant is one the simulator acts on;
- a free-form skill gets the text operators: delete a step, bullet, sentence or section
  (ratchet/mutate/text_ops.py), negate a rule, drop "only" or a condition (rule_ops.py), drop an output
  field or heading (text_ops.py), change a value, insert a side effect (value_ops.py); and the
  description operators shared with the program ones (broaden R5, narrow R6).

Only SKILL.md is mutated (not references/ or scripts/). Every candidate is parsed as a skill: one that
is not valid or changes the skill's name is dropped (`dropped_invalid`), one with the original's
`substance_hash` (no change after normalisation: whitespace, comments) is dropped as equivalent
(`dropped_equivalent`), one that makes the same skill as another mutant is dropped as a duplicate.

The cap: at most `per_operator` mutants per operator (PER_OPERATOR = 3 by default), chosen among that
operator's candidates by a generator seeded from (seed, skill, operator) through sha256, then kept in
file order; `capped` counts the candidates left out. A long skill thus makes at most 3 x 13 mutants
(free-form) or 3 x 8 (program), never hundreds. Ids are `<skill>/<operator>-<n>`, n from 1 in file
order, so the same seed gives a byte-identical list and another seed may choose other candidates.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ratchet.core.errors import SkillError
from ratchet.mutate.models import Mutant
from ratchet.mutate.program_ops import PROGRAM_OPERATORS, Operator, sim_operator
from ratchet.mutate.rule_ops import drop_conditions, drop_only, negate_rules
from ratchet.mutate.source import Edit, Source
from ratchet.mutate.text_ops import delete_items, delete_sections, delete_sentences, drop_fields, drop_headings
from ratchet.mutate.value_ops import change_values, insert_side_effects
from ratchet.sim.follow import follow_report
from ratchet.sim.injector import ToolInfo
from ratchet.skills.discovery import SKILL_FILE
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world.tools import Tool

PER_OPERATOR = 3
"""The default cap: at most this many mutants per operator and skill."""

Convention = Literal["program", "prose"]

PROSE_OPERATORS: tuple[tuple[str, Operator], ...] = (
    ("delete-step", functools.partial(delete_items, ordered=True)),
    ("delete-bullet", functools.partial(delete_items, ordered=False)),
    ("delete-sentence", delete_sentences),
    ("delete-section", delete_sections),
    ("negate-rule", negate_rules),
    ("drop-only", drop_only),
    ("drop-condition", drop_conditions),
    ("drop-field", drop_fields),
    ("drop-heading", drop_headings),
    ("change-value", change_values),
    ("insert-side-effect", insert_side_effects),
    ("broaden-description", sim_operator("broaden-description", "R5")),
    ("narrow-description", sim_operator("narrow-description", "R6")),
)


class MutantSet(BaseModel):
    """The mutants of one skill and what was left out on the way, for the run's report."""

    skill: str
    convention: Convention = Field(description="program: the simulator's convention; prose: free-form text.")
    per_operator: int = Field(description="The cap: at most this many mutants per operator.")
    mutants: list[Mutant] = Field(default_factory=list)
    candidates: int = Field(default=0, description="Valid, distinct, non-equivalent candidates before the cap.")
    capped: int = Field(default=0, description="Candidates left out by the cap.")
    dropped_equivalent: int = Field(default=0, description="Candidates with the skill's own substance_hash.")
    dropped_duplicate: int = Field(default=0, description="Candidates making the same skill as a kept one.")
    dropped_invalid: int = Field(default=0, description="Candidates that are not a valid skill of the same name.")


def tool_infos(tools: Iterable[Tool]) -> tuple[ToolInfo, ...]:
    """What the operators know of the world's tools (ratchet.world.tools.offered_tools): name, effect, params."""
    return tuple(
        ToolInfo(t.name, t.effect, tuple((n, p.type, p.required, p.enum) for n, p in t.params.items())) for t in tools
    )


def convention_of(skill: Skill, tools: Sequence[ToolInfo]) -> Convention:
    """program when the simulator can follow the skill with these tools, else prose."""
    report = follow_report(skill.body, frozenset(t.name for t in tools), body_line=skill.body_line)
    return "program" if report.followable else "prose"


def mutants_of(
    skill: Skill, folder: Path, *, tools: Sequence[ToolInfo], seed: int, per_operator: int = PER_OPERATOR
) -> list[Mutant]:
    """The mutants of one skill folder: stable ids, stable order, equivalents dropped (see mutate_skill)."""
    return mutate_skill(skill, folder, tools=tools, seed=seed, per_operator=per_operator).mutants


def mutate_skill(
    skill: Skill, folder: Path, *, tools: Sequence[ToolInfo], seed: int, per_operator: int = PER_OPERATOR
) -> MutantSet:
    """The mutants of one skill folder and the counts of what was dropped or capped."""
    raw = (folder / SKILL_FILE).read_bytes().decode("utf-8")
    newline = "\r\n" if "\r\n" in raw else "\n"
    source = Source(skill.name, raw.replace("\r\n", "\n").replace("\r", "\n"), tuple(tools), seed)
    convention = convention_of(skill, tools)
    result = MutantSet(skill=skill.name, convention=convention, per_operator=per_operator)
    kept: set[str] = {skill.substance_hash}
    for operator, run in PROGRAM_OPERATORS if convention == "program" else PROSE_OPERATORS:
        pool: list[tuple[Edit, str]] = []
        for edit in run(source):
            substance = _substance(edit.text, skill.name, folder)
            if substance is None:
                result.dropped_invalid += 1
            elif substance == skill.substance_hash:
                result.dropped_equivalent += 1
            elif substance in kept or any(substance == other for _, other in pool):
                result.dropped_duplicate += 1
            else:
                pool.append((edit, substance))
        chosen = _choose(pool, per_operator, source, operator)
        result.candidates += len(pool)
        result.capped += len(pool) - len(chosen)
        for number, (edit, substance) in enumerate(chosen, start=1):
            kept.add(substance)
            result.mutants.append(_mutant(source, edit, number, newline))
    return result


def _substance(text: str, name: str, folder: Path) -> str | None:
    """The candidate's substance_hash, or None when it is not a valid skill named `name`."""
    try:
        parsed = parse_skill_text(text, folder=folder, source=str(folder / SKILL_FILE))
    except SkillError:
        return None
    return parsed.substance_hash if parsed.name == name else None


def _choose(pool: list[tuple[Edit, str]], cap: int, source: Source, operator: str) -> list[tuple[Edit, str]]:
    """At most `cap` of the pool, chosen by the seed, in file order."""
    indices = list(range(len(pool)))
    if len(pool) > cap:
        indices = source.rng(f"{operator}|cap").sample(indices, max(cap, 0))
    return [pool[i] for i in sorted(indices, key=lambda i: (pool[i][0].line, i))]


def _mutant(source: Source, edit: Edit, number: int, newline: str) -> Mutant:
    path = f"{source.name}/{SKILL_FILE}"
    diff = difflib.unified_diff(
        source.text.split("\n"), edit.text.split("\n"), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm=""
    )
    return Mutant(
        id=f"{source.name}/{edit.operator}-{number}",
        skill=source.name,
        mutant_class=edit.mutant_class,
        operator=edit.operator,
        description=" ".join(f"{SKILL_FILE}:{edit.line}: {edit.what}".split()),
        files={SKILL_FILE: edit.text.replace("\n", newline)},
        diff="\n".join(diff) + "\n",
    )
