"""Each real change of an Alignment, named: what a reviewer reading the skill diff asks about.

For every pair that changed, every instruction added or removed and every step that moved, the
specific kinds come first (an added side-effect action, a removed or weakened rule, a changed
constant or condition, a removed or renamed output element, a broader or narrower description,
content after the skill-closing line); a change none of them describes is `instruction_*`. A code
block is compared line by line, so a line added to it reads like an added instruction.
"""

from __future__ import annotations

import dataclasses
from difflib import SequenceMatcher

from ratchet.config.harness import HarnessName
from ratchet.diff.align import Alignment
from ratchet.diff.changes import (
    SCOPE_FIELDS,
    TOOL_FIELDS,
    condition_change,
    constant_changes,
    rule_weakening,
    scope_change,
    tool_names,
)
from ratchet.diff.effects import ToolCatalog
from ratchet.diff.instructions import Instruction
from ratchet.diff.models import DiffFinding, DiffKind
from ratchet.diff.reading import Action, actions, output_name, rules
from ratchet.diff.wording import act, does, located, quote, what, word_change


def classify(
    alignment: Alignment, *, path: str, head: list[Instruction], catalog: ToolCatalog, harness: HarnessName
) -> list[DiffFinding]:
    """The findings of one file's alignment, sorted by line, then kind."""
    reader = _Classifier(path, catalog, harness)
    closes = [b for b in alignment.added if b.kind == "delimiter"]
    for delimiter in closes:
        reader.delimiter_added(delimiter, [i for i in head if i.line > delimiter.line])
    for a, b in alignment.changed:
        reader.changed(a, b, announce_close=not closes)
    for a in alignment.removed:
        reader.removed(a)
    for b in alignment.added:
        if b.kind != "delimiter":
            reader.added(b, announce_close=not closes)
    for a, b in alignment.moved:
        reader.moved(a, b)
    if not closes:
        for a, b in [*alignment.same, *alignment.moved]:
            if b.after_close and not a.after_close:
                reader.now_after_close(b)
    order = list(DiffKind)
    return sorted(reader.findings, key=lambda f: (f.line or 0, f.side, order.index(f.kind), f.message))


class _Classifier:
    def __init__(self, path: str, catalog: ToolCatalog, harness: HarnessName) -> None:
        self.path = path
        self.catalog = catalog
        self.harness = harness
        self.findings: list[DiffFinding] = []

    def _add(self, kind: DiffKind, at: Instruction, message: str, *, side: str = "head", **fields: str | None) -> None:
        self.findings.append(
            DiffFinding(
                kind=kind,
                path=self.path,
                line=at.line,
                side="base" if side == "base" else "head",
                where=at.where,
                message=message,
                **fields,
            )
        )

    # -- added, removed, moved

    def added(self, b: Instruction, *, announce_close: bool) -> None:
        if b.after_close and announce_close:
            self._add(
                DiffKind.AFTER_SKILL_CLOSE,
                b,
                f"adds {quote(b.text)} after a line that closes the skill block: "
                "a harness reads it as outside the skill",
                new=b.text,
            )
        if b.kind == "field":
            self._field_added(b)
            return
        if b.kind == "code" and "\n" in b.text:
            lines = _code_body(b)
            self._code_lines_added(b, lines, b.code_lines or (b.line,) * len(lines))
            return
        found = actions(b, self.catalog)
        for action in found:
            self._action_added(b, action)
        if not found:
            self._add(
                DiffKind.INSTRUCTION_ADDED, b, f"adds {what(b, self.harness)} {quote(b.text)}{located(b)}", new=b.text
            )

    def removed(self, a: Instruction) -> None:
        if a.kind == "field":
            self._add(
                DiffKind.INSTRUCTION_REMOVED,
                a,
                f"removes the frontmatter key {a.field_name!r}",
                side="base",
                old=a.text,
            )
            return
        if a.kind == "code" and "\n" in a.text:
            lines = _code_body(a)
            for line_no, line in zip(a.code_lines or (a.line,) * len(lines), lines, strict=False):
                self.removed(dataclasses.replace(a, text=line, line=line_no, code_lines=()))
            return
        found = rules(a)
        if found.is_rule:
            self._add(DiffKind.RULE_REMOVED, a, f"removes the rule {quote(a.text)}", side="base", old=a.text)
            return
        name = output_name(a)
        if name is not None:
            self._add(DiffKind.OUTPUT_REMOVED, a, f"removes the output element {quote(name)}", side="base", old=name)
            return
        gone = actions(a, self.catalog)
        for action in gone:
            self._add(
                DiffKind.ACTION_REMOVED,
                a,
                f"no longer {does(action)}: {quote(a.text)}",
                side="base",
                action=action.name,
                effect=action.effect,
                target=action.target,
                old=a.text,
            )
        if not gone:
            self._add(
                DiffKind.INSTRUCTION_REMOVED,
                a,
                f"removes {what(a, self.harness)} {quote(a.text)}{located(a)}",
                side="base",
                old=a.text,
            )

    def moved(self, a: Instruction, b: Instruction) -> None:
        self._add(
            DiffKind.ORDER_CHANGED,
            b,
            f"moves {quote(b.text)} from {a.step or 'its place'} to "
            f"{b.step or 'another place'}: the steps now run in another order",
            old=a.step,
            new=b.step,
        )

    def delimiter_added(self, b: Instruction, after: list[Instruction]) -> None:
        first = f": {quote(after[0].text)}" + (f" and {len(after) - 1} more" if len(after) > 1 else "") if after else ""
        self._add(
            DiffKind.AFTER_SKILL_CLOSE,
            b,
            f"adds the line {b.text} which closes the skill block a harness "
            f"wraps the body in: {len(after)} instruction(s) after it are outside the skill{first}",
            new=b.text,
        )

    def now_after_close(self, b: Instruction) -> None:
        self._add(
            DiffKind.AFTER_SKILL_CLOSE,
            b,
            f"{quote(b.text)} is now after a line that closes the skill block",
            new=b.text,
        )

    # -- changed

    def changed(self, a: Instruction, b: Instruction, *, announce_close: bool) -> None:
        if a.kind == "field":
            self._field_changed(a, b)
            return
        if a.kind == "code":
            self._code_changed(a, b)
            return
        before = len(self.findings)
        if b.after_close and not a.after_close and announce_close:
            self.now_after_close(b)
        self._text_changed(a, b)
        if len(self.findings) == before:
            self._add(
                DiffKind.INSTRUCTION_CHANGED,
                b,
                f"rewords {what(b, self.harness)}{located(b)}: {word_change(a.text, b.text)}",
                old=a.text,
                new=b.text,
            )

    def _text_changed(self, a: Instruction, b: Instruction) -> None:
        old_name, new_name = output_name(a), output_name(b)
        if old_name is not None and new_name is not None and old_name != new_name:
            self._add(
                DiffKind.OUTPUT_RENAMED,
                b,
                f"renames the output element {quote(old_name)} to {quote(new_name)}",
                old=old_name,
                new=new_name,
            )
        self._rules_changed(a, b)
        acts_a, acts_b = actions(a, self.catalog), actions(b, self.catalog)
        effects_a, effects_b = {x.effect for x in acts_a}, {x.effect for x in acts_b}
        new_actions = [x for x in acts_b if x.effect not in effects_a]
        for action in new_actions:
            self._action_added(b, action)
        for action in (x for x in acts_a if x.effect not in effects_b):
            self._add(
                DiffKind.ACTION_REMOVED,
                b,
                f"no longer {does(action)}{located(b)}: {quote(b.text)}",
                action=action.name,
                effect=action.effect,
                target=action.target,
                old=a.text,
                new=b.text,
            )
        self._conditions_changed(a, b)
        # An added action's target and a renamed output element's names are named by those findings already.
        skip = {x.target for x in new_actions if x.target} | {name for name in (old_name, new_name) if name is not None}
        self._constants_changed(a, b, skip=skip)

    def _rules_changed(self, a: Instruction, b: Instruction) -> None:
        weakening = rule_weakening(a, b)
        if weakening is not None:
            self._add(
                DiffKind.RULE_WEAKENED,
                b,
                f"weakens the rule {quote(a.text)}{located(b)}: {weakening}",
                old=a.text,
                new=b.text,
            )

    def _conditions_changed(self, a: Instruction, b: Instruction) -> None:
        change = condition_change(a, b)
        if change is not None:
            self._add(
                DiffKind.CONDITION_CHANGED, b, f"changes the condition{located(b)}: {change}", old=a.text, new=b.text
            )

    def _constants_changed(self, a: Instruction, b: Instruction, *, skip: set[str]) -> None:
        for old, new in constant_changes(a, b, skip=skip):
            if old is not None and new is not None:
                self._add(DiffKind.CONSTANT_CHANGED, b, f"changes {old} to {new}{located(b)}", old=old, new=new)
            elif old is not None:
                self._add(DiffKind.CONSTANT_CHANGED, b, f"drops {old}{located(b)}", old=old)
            else:
                self._add(DiffKind.CONSTANT_CHANGED, b, f"adds {new}{located(b)}", new=new)

    # -- code blocks, line by line

    def _code_changed(self, a: Instruction, b: Instruction) -> None:
        old_lines, new_lines = _code_body(a), _code_body(b)
        old_at, new_at = a.code_lines or (a.line,) * len(old_lines), b.code_lines or (b.line,) * len(new_lines)
        matcher = SequenceMatcher(None, old_lines, new_lines, autojunk=False)
        before = len(self.findings)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op == "equal":
                continue
            pairs = min(i2 - i1, j2 - j1) if op == "replace" else 0
            for k in range(pairs):
                line_a = dataclasses.replace(a, text=old_lines[i1 + k], line=old_at[i1 + k], code_lines=())
                line_b = dataclasses.replace(b, text=new_lines[j1 + k], line=new_at[j1 + k], code_lines=())
                self._text_changed(line_a, line_b)
            for k in range(i1 + pairs, i2):
                self.removed(dataclasses.replace(a, text=old_lines[k], line=old_at[k], code_lines=()))
            self._code_lines_added(b, new_lines[j1 + pairs : j2], new_at[j1 + pairs : j2])
        if len(self.findings) == before:
            self._add(
                DiffKind.INSTRUCTION_CHANGED,
                b,
                f"changes the code block{located(b)}: {word_change(a.text, b.text)}",
                old=a.text,
                new=b.text,
            )

    def _code_lines_added(self, b: Instruction, lines: list[str], at: tuple[int, ...]) -> None:
        quiet: list[tuple[int, str]] = []
        for line_no, line in zip(at, lines, strict=False):
            found = actions(dataclasses.replace(b, text=line, line=line_no, code_lines=()), self.catalog)
            for action in found:
                self._action_added(dataclasses.replace(b, text=line, line=line_no), action)
            if not found:
                quiet.append((line_no, line))
        if quiet:
            self._add(
                DiffKind.INSTRUCTION_ADDED,
                dataclasses.replace(b, line=quiet[0][0]),
                f"adds code{located(b)}: {quote(' / '.join(line for _, line in quiet))}",
                new="\n".join(line for _, line in quiet),
            )

    # -- frontmatter

    def _field_added(self, b: Instruction) -> None:
        if b.field_name in TOOL_FIELDS:
            self._tools_changed(b, set(), tool_names(b.text))
            return
        self._add(
            DiffKind.INSTRUCTION_ADDED, b, f"adds the frontmatter key {b.field_name!r}: {quote(b.text)}", new=b.text
        )

    def _field_changed(self, a: Instruction, b: Instruction) -> None:
        before = len(self.findings)
        if a.field_name in SCOPE_FIELDS:
            self._scope_changed(a, b)
        elif a.field_name in TOOL_FIELDS:
            self._tools_changed(b, tool_names(a.text), tool_names(b.text))
        else:
            self._constants_changed(a, b, skip=set())
        if len(self.findings) == before:
            self._add(
                DiffKind.INSTRUCTION_CHANGED,
                b,
                f"changes the frontmatter key {a.field_name!r}: {word_change(a.text, b.text)}",
                old=a.text,
                new=b.text,
            )

    def _tools_changed(self, b: Instruction, old: set[str], new: set[str]) -> None:
        for name in sorted(new - old):
            effect = self.catalog.effect_of(name)
            if effect is not None:
                self._add(
                    DiffKind.ACTION_ADDED, b, f"allows the tool {name} ({effect})", action=name, effect=effect, new=name
                )

    def _scope_changed(self, a: Instruction, b: Instruction) -> None:
        change = scope_change(a, b)
        if change is not None:
            kind, message = change
            self._add(kind, b, message, old=a.text, new=b.text)

    # -- an added action

    def _action_added(self, at: Instruction, action: Action) -> None:
        self._add(
            DiffKind.ACTION_ADDED,
            at,
            f"adds an instruction to {act(action)} ({action.effect}){located(at)}: {quote(at.text)}",
            action=action.name,
            effect=action.effect,
            target=action.target,
            new=at.text,
        )


def _code_body(instruction: Instruction) -> list[str]:
    lines = instruction.text.split("\n")
    return lines[len(lines) - len(instruction.code_lines) :] if instruction.code_lines else lines
