"""R7 of the offline injector: fault handling removed. Also the F0 controls that keep it.

A fault-handling step, in the skill convention, is a condition on a side-effecting call's failure
(`If `$pay.error`: ...`, the call being `payments_schedule(...)` as `$pay`) whose body makes the same
call again with the same arguments: a retry. It may look first (a read call in the step, the retry
under a nested condition on what it read): a check before retrying. Real skills carry both ("retry once
on a 503", "check whether the payment went through before paying again"); an edit that deletes them
changes nothing on a world that never fails, which is why R7 is measured with faults in the goldens.

    R7 delete   the whole fault-handling step (its retry, and the check before it when it has one)
    R7 blind    keep the retry, delete the check before it: the call is retried blindly
    F0 rename   rename the failed call's result variable everywhere (behaviour kept)
    F0 reword   reword the fault-handling step's prose, every backticked span kept (behaviour kept)

Like R1-R6 it reads only the skill and the offered tools' effects, never tasks, goldens or faults.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ratchet.sim.mutate_common import BULLET, CALL, Candidate, ToolInfo, code_spans, lead_text, sections, split_skill

SIDE_EFFECTS = frozenset({"write", "send", "spend", "destroy"})
_ITEM_NUMBER = re.compile(r"^(\s*)(\d+)([.)])(\s+.*)$")
_AS = re.compile(r"^\s*as\s*$")
REWORDED_LEAD = ": when that call fails, handle it as follows: "


@dataclass(frozen=True)
class _Call:
    line: int
    tool: str
    args: str
    target: str | None
    span: str


@dataclass(frozen=True)
class FaultStep:
    """One fault-handling step of a skill body: where it is and what it retries."""

    start: int  # body line index of the step's item
    end: int  # one past its last line (nested items included)
    target: str  # the variable the failed call's result is held in, without `$`
    tool: str
    retry: _Call
    checks: bool  # the step reads something before it retries (the retry sits under a nested condition)


def _indent(line: str) -> int:
    match = BULLET.match(line)
    return len(match.group(1).expandtabs(4)) if match else -1


def _extent(body: Sequence[str], start: int, end: int) -> int:
    """One past the last line of the item at `start`: its wrapped lines and nested items."""
    own = _indent(body[start])
    index = start + 1
    while index < end:
        line = body[index]
        if line.strip() and ((_indent(line) != -1 and _indent(line) <= own) or not line[:1].isspace()):
            break
        index += 1
    while index > start + 1 and not body[index - 1].strip():
        index -= 1
    return index


def _calls(body: Sequence[str], start: int, end: int, tools: dict[str, ToolInfo]) -> list[_Call]:
    found: list[_Call] = []
    for index in range(start, end):
        line = body[index]
        spans = code_spans(line)
        for i, (span, _s, span_end) in enumerate(spans):
            match = CALL.match(span)
            if not match or match.group(1) not in tools:
                continue
            target = None
            if i + 1 < len(spans) and _AS.match(line[span_end : spans[i + 1][1]]):
                target = spans[i + 1][0].strip().lstrip("$")
            found.append(_Call(index, match.group(1), " ".join(match.group(2).split()), target, span))
    return found


def fault_steps(text: str, tools: Sequence[ToolInfo]) -> list[FaultStep]:
    """The fault-handling steps of a SKILL.md, in body order (empty when it has none)."""
    _frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    start, end = sections(body).get("steps", (0, 0))
    by_name = {t.name: t for t in tools}
    calls = _calls(body, start, end, by_name)
    steps: list[FaultStep] = []
    for index in range(start, end):
        spans = code_spans(body[index])
        if not BULLET.match(body[index]) or not spans or not lead_text(body[index]).startswith("if"):
            continue
        condition = spans[0][0]
        stop = _extent(body, index, end)
        for call in calls:
            if call.line >= index or call.target is None or by_name[call.tool].effect not in SIDE_EFFECTS:
                continue
            if not re.search(rf"\${re.escape(call.target)}\.error\b", condition):
                continue
            retry = next(
                (c for c in calls if index <= c.line < stop and c.tool == call.tool and c.args == call.args), None
            )
            if retry is None:
                continue
            reads = any(c.line == index and by_name[c.tool].effect == "read" for c in calls if index <= c.line < stop)
            steps.append(FaultStep(index, stop, call.target, call.tool, retry, reads and retry.line > index))
            break
    return steps


def _renumbered(body: list[str], start: int, own: int) -> None:
    """Number the siblings from `start` on one lower (a step was deleted before them)."""
    for index in range(start, len(body)):
        line = body[index]
        if line.strip() and not line[:1].isspace() and _indent(line) == -1:
            return  # a heading or a paragraph: the list is over
        if _indent(line) == -1:
            continue
        if _indent(line) < own:
            return
        match = _ITEM_NUMBER.match(line)
        if _indent(line) == own and match:
            body[index] = f"{match.group(1)}{int(match.group(2)) - 1}{match.group(3)}{match.group(4)}"


def r7_candidates(body: Sequence[str], text: str, tools: Sequence[ToolInfo]) -> list[Candidate]:
    """Every R7 edit of the skill: each fault-handling step deleted, and each check before a retry deleted."""
    found: list[Candidate] = []
    for step in fault_steps(text, tools):
        lines = list(body)
        del lines[step.start : step.end]
        if _ITEM_NUMBER.match(body[step.start]):
            _renumbered(lines, step.start, _indent(body[step.start]))
        what = "its retry and the check before it" if step.checks else "its retry"
        found.append(
            Candidate(
                f"R7|delete|{step.tool}|{step.start}",
                f"deletes the step handling a failed {step.tool} call ({what})",
                tuple(lines),
            )
        )
        children = [i for i in range(step.start + 1, step.end) if BULLET.match(body[i])]
        if step.checks and len(children) == 1 and children[0] == step.retry.line:
            head = BULLET.match(body[step.start])
            assert head is not None
            marker = body[step.start][len(head.group(1)) :].split(maxsplit=1)[0]
            condition = code_spans(body[step.start])[0][0]
            target = f" as `${step.retry.target}`" if step.retry.target else ""
            blind = f"{head.group(1)}{marker} If `{condition}`: try again: `{step.retry.span}`{target}."
            lines = [*body[: step.start], blind, *body[step.end :]]
            found.append(
                Candidate(
                    f"R7|blind|{step.tool}|{step.start}",
                    f"deletes the check before retrying a failed {step.tool} call: it is retried blindly",
                    tuple(lines),
                )
            )
    return found


def f0_candidates(text: str, tools: Sequence[ToolInfo]) -> list[tuple[str, str]]:
    """Behaviour-keeping edits of the fault handling (whole SKILL.md, description): a rename, then a rewording."""
    steps = fault_steps(text, tools)
    if not steps:
        return []
    frontmatter, body_text = split_skill(text)
    step = steps[0]
    found: list[tuple[str, str]] = []
    new = f"{step.target}_reply"
    if f"${new}" not in body_text:
        renamed = re.sub(rf"\${re.escape(step.target)}\b", f"${new}", body_text)
        found.append((frontmatter + renamed, f"renames `${step.target}` to `${new}` (the failed call's result)"))
    body = body_text.split("\n")
    line = body[step.start]
    spans = code_spans(line)
    if len(spans) >= 2:
        reworded = line[: spans[0][2]] + REWORDED_LEAD + line[spans[1][1] :]
        if reworded != line:
            body[step.start] = reworded
            found.append(
                (frontmatter + "\n".join(body), f"rewords the prose of the step handling a failed {step.tool} call")
            )
    return found
