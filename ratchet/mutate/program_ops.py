"""The program operators, for a skill in the simulator's convention (backticked programs in ## Steps / ## Output).

They are the benchmark's offline injector (ratchet.sim.injector: every candidate of each R1-R6 template,
not one seeded pick), so a mutant is a regression the simulator acts on, plus two it lacks:

    delete-step         R1  a step of ## Steps (with its nested items) deleted
    change-logic        R1  a comparison, arithmetic operator, number, filter list or ordering changed
    negate-condition    R1  a step's condition negated (`$x.error` -> `not $x.error`)
    drop-field          R2  a field of ## Output dropped
    change-argument     R3  a literal or variable argument of a tool call changed
    insert-side-effect  R4  a step calling a write/send/spend/destroy tool the world offers
    broaden-description R5  generic trigger words added to the description (free-form skills too)
    narrow-description  R6  the description narrowed so it stops matching its own requests (free-form too)
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ratchet.mutate.models import MutantClass
from ratchet.mutate.source import Edit, Source, first_changed, item_end, shorten
from ratchet.sim.expr import ExprError, parse
from ratchet.sim.injector import InjectContext, candidates_for, sections, split_skill, with_description
from ratchet.sim.mutate_common import BULLET, code_spans, lead_text, replace_span

Operator = Callable[[Source], list[Edit]]


def sim_operator(operator: str, cls: MutantClass) -> Operator:
    """Every candidate the offline injector has for one class, as edits of this operator."""

    def run(source: Source) -> list[Edit]:
        frontmatter, body_text = split_skill(source.text)
        found = candidates_for(source.text, source.name, cls, InjectContext(tools=source.tools), source.rng(operator))
        edits: list[Edit] = []
        for candidate in found:
            if candidate.new_description is not None:
                text = with_description(frontmatter, candidate.new_description) + body_text
            else:
                text = frontmatter + "\n".join(candidate.lines)
            what = shorten(re.sub(r" \(step line \d+\)$", "", candidate.description), 120)
            edits.append(Edit(operator, cls, first_changed(source.lines, text), what, text))
        return edits

    return run


def _steps(source: Source) -> tuple[list[str], int, range]:
    """The body's lines, the SKILL.md index of its first line, and the body indices of ## Steps."""
    frontmatter, body_text = split_skill(source.text)
    body = body_text.split("\n")
    start, end = sections(body).get("steps", (0, 0))
    return body, frontmatter.count("\n"), range(start, end)


def delete_steps(source: Source) -> list[Edit]:
    body, shift, steps = _steps(source)
    starts = {i.line: i for i in source.instructions if i.kind == "item" and i.item_start}
    edits: list[Edit] = []
    for index in steps:
        if not BULLET.match(body[index]):
            continue
        line = shift + index
        item = starts.get(line + 1)
        step = item.step if item is not None else None
        name = step if item is not None and item.ordered and step else f"a bullet of {step}" if step else "a bullet"
        text = BULLET.sub(r"\2", body[index])
        what = f"deleted {name} {shorten(text)!r}"
        edits.append(Edit("delete-step", "R1", line + 1, what, source.without(line, item_end(source.lines, line))))
    return edits


def _valid(expr: str) -> bool:
    try:
        parse(expr)
    except ExprError:
        return False
    return True


def negate_conditions(source: Source) -> list[Edit]:
    body, shift, steps = _steps(source)
    edits: list[Edit] = []
    for index in steps:
        line = body[index]
        spans = code_spans(line)
        lead = lead_text(line)
        if not spans or not (lead.startswith(("if", "otherwise", "else")) and "if" in lead.split()):
            continue
        span, start, end = spans[0]
        if re.match(r"^\$\w+\s*=(?!=)", span):
            continue
        new = span[4:] if span.startswith("not ") else (f"not ({span})" if " " in span else f"not {span}")
        if not _valid(new):
            continue
        text = source.replaced(shift + index, replace_span(line, start, end, new))
        edits.append(
            Edit("negate-condition", "R1", shift + index + 1, f"negated the condition `{span}` -> `{new}`", text)
        )
    return edits


PROGRAM_OPERATORS: tuple[tuple[str, Operator], ...] = (
    ("delete-step", delete_steps),
    ("change-logic", sim_operator("change-logic", "R1")),
    ("negate-condition", negate_conditions),
    ("drop-field", sim_operator("drop-field", "R2")),
    ("change-argument", sim_operator("change-argument", "R3")),
    ("insert-side-effect", sim_operator("insert-side-effect", "R4")),
    ("broaden-description", sim_operator("broaden-description", "R5")),
    ("narrow-description", sim_operator("narrow-description", "R6")),
)
