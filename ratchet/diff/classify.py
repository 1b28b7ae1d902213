"""Each real change of an Alignment, named: what a reviewer reading the skill diff asks about.

For every pair that changed, every instruction added or removed and every step that moved, the
specific kinds come first (an added side-effect action, a removed or weakened rule, a changed
constant or condition, a removed or renamed output element, a broader or narrower description,
content after the skill-closing line); a change none of them describes is `instruction_*`. A code
block is compared line by line, so a line added to it reads like an added instruction.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from difflib import SequenceMatcher

from ratchet.diff.align import Alignment
from ratchet.diff.effects import ToolCatalog
from ratchet.diff.instructions import Instruction
from ratchet.diff.lexicon import BROAD_WORDS, NARROW_WORDS, STOPWORDS
from ratchet.diff.models import DiffFinding, DiffKind
from ratchet.diff.reading import (
    Action,
    actions,
    conditions,
    constants,
    output_name,
    rules,
    words_of,
)
from ratchet.harness.settings import HarnessName

SCOPE_FIELDS = frozenset({"description", "when_to_use"})
"""Frontmatter keys a harness routes on: a change there is read for scope (broader, narrower)."""
TOOL_FIELDS = frozenset({"allowed-tools"})
_TAKES_RECIPIENT = frozenset({"email", "e-mail", "mail", "cc", "notify", "ping", "invite", "message", "dm", "pay"})
QUOTE_CHARS = 90


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


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """`text` in single quotes, cut at `limit` characters with an ellipsis."""
    text = " ".join(text.split())
    return f"'{text if len(text) <= limit else text[: limit - 1].rstrip() + '…'}'"


def _in(instruction: Instruction) -> str:
    where = instruction.where
    return f" in {where}" if where else ""


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
            self._add(DiffKind.INSTRUCTION_ADDED, b, f"adds {self._what(b)} {quote(b.text)}{_in(b)}", new=b.text)

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
                f"no longer {self._does(action)}: {quote(a.text)}",
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
                f"removes {self._what(a)} {quote(a.text)}{_in(a)}",
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
                f"rewords {self._what(b)}{_in(b)}: {word_change(a.text, b.text)}",
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
                f"no longer {self._does(action)}{_in(b)}: {quote(b.text)}",
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
        old, new = rules(a), rules(b)
        if not old.is_rule:
            return
        lost = [family for family in old.strong if family not in new.strong]
        hedged = [hedge for hedge in new.hedges if hedge not in old.hedges]
        if not lost and not hedged:
            return
        parts = [
            f"{old.strong[family]!r} became {new.soft[family]!r}"
            if family in new.soft
            else f"{old.strong[family]!r} is gone"
            for family in lost
        ]
        parts += [f"adds {hedge!r}" for hedge in hedged]
        self._add(
            DiffKind.RULE_WEAKENED,
            b,
            f"weakens the rule {quote(a.text)}{_in(b)}: {', '.join(parts)}",
            old=a.text,
            new=b.text,
        )

    def _conditions_changed(self, a: Instruction, b: Instruction) -> None:
        old, new = conditions(a), conditions(b)
        if old == new:
            return
        gone, came = sorted((old - new).elements()), sorted((new - old).elements())
        if gone and came:
            change = f"{' '.join(repr(x) for x in gone)} became {' '.join(repr(x) for x in came)}"
        elif gone:
            change = f"drops {' '.join(repr(x) for x in gone)}"
        else:
            change = f"adds {' '.join(repr(x) for x in came)}"
        self._add(DiffKind.CONDITION_CHANGED, b, f"changes the condition{_in(b)}: {change}", old=a.text, new=b.text)

    def _constants_changed(self, a: Instruction, b: Instruction, *, skip: set[str]) -> None:
        old, new = Counter(constants(a)), Counter(constants(b))
        gone = [item for item in dict.fromkeys(constants(a)) if old[item] > new[item] and item[1] not in skip]
        came = [item for item in dict.fromkeys(constants(b)) if new[item] > old[item] and item[1] not in skip]
        for kind, value in gone:
            partner = next((item for item in came if item[0] == kind), None)
            if partner is not None:
                came.remove(partner)
                self._add(
                    DiffKind.CONSTANT_CHANGED, b, f"changes {value} to {partner[1]}{_in(b)}", old=value, new=partner[1]
                )
            else:
                self._add(DiffKind.CONSTANT_CHANGED, b, f"drops {value}{_in(b)}", old=value)
        for _, value in came:
            self._add(DiffKind.CONSTANT_CHANGED, b, f"adds {value}{_in(b)}", new=value)

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
                f"changes the code block{_in(b)}: {word_change(a.text, b.text)}",
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
                f"adds code{_in(b)}: {quote(' / '.join(line for _, line in quiet))}",
                new="\n".join(line for _, line in quiet),
            )

    # -- frontmatter

    def _field_added(self, b: Instruction) -> None:
        if b.field_name in TOOL_FIELDS:
            self._tools_changed(b, set(), _tool_names(b.text))
            return
        self._add(
            DiffKind.INSTRUCTION_ADDED, b, f"adds the frontmatter key {b.field_name!r}: {quote(b.text)}", new=b.text
        )

    def _field_changed(self, a: Instruction, b: Instruction) -> None:
        before = len(self.findings)
        if a.field_name in SCOPE_FIELDS:
            self._scope_changed(a, b)
        elif a.field_name in TOOL_FIELDS:
            self._tools_changed(b, _tool_names(a.text), _tool_names(b.text))
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
        old_words, new_words = words_of(a.text), words_of(b.text)
        old_terms, new_terms = _terms(old_words), _terms(new_words)
        added, dropped = sorted(new_terms - old_terms), sorted(old_terms - new_terms)
        broad = sorted((new_words & BROAD_WORDS) - old_words) + sorted((old_words & NARROW_WORDS) - new_words)
        narrow = sorted((new_words & NARROW_WORDS) - old_words) + sorted((old_words & BROAD_WORDS) - new_words)
        score = len(added) - len(dropped) + 3 * (len(broad) - len(narrow))
        if score == 0:
            return
        kind = DiffKind.DESCRIPTION_BROADENED if score > 0 else DiffKind.DESCRIPTION_NARROWED
        terms = ", ".join(repr(t) for t in (added if score > 0 else dropped)[:8])
        more = len(added if score > 0 else dropped) - 8
        scope = ", ".join(repr(w) for w in (broad if score > 0 else narrow))
        detail = "; ".join(
            part
            for part in (
                f"{'adds' if score > 0 else 'drops'} {terms}{f' and {more} more' if more > 0 else ''}" if terms else "",
                f"{'widens' if score > 0 else 'narrows'} with {scope}" if scope else "",
            )
            if part
        )
        verb = "broadens" if score > 0 else "narrows"
        self._add(kind, b, f"{verb} the {a.field_name}: {detail}", old=a.text, new=b.text)

    # -- wording

    def _action_added(self, at: Instruction, action: Action) -> None:
        self._add(
            DiffKind.ACTION_ADDED,
            at,
            f"adds an instruction to {self._act(action)} ({action.effect}){_in(at)}: {quote(at.text)}",
            action=action.name,
            effect=action.effect,
            target=action.target,
            new=at.text,
        )

    @staticmethod
    def _act(action: Action) -> str:
        target = f" {action.target}" if action.target else ""
        if action.via == "tool":
            return f"call {action.name}{target}"
        if action.via == "command":
            return f"run `{action.name}`{target}"
        # "email finance@example.com", but "post to #finance", "send to ops@example.com".
        joined = target if action.name in _TAKES_RECIPIENT or not target else f" to{target}"
        return f"{action.name}{joined}"

    def _does(self, action: Action) -> str:
        return f"tells the agent to {self._act(action)} ({action.effect})"

    def _what(self, instruction: Instruction) -> str:
        if instruction.kind == "comment":
            return f"a comment the model reads ({self.harness} sends SKILL.md as written):"
        return {"heading": "the heading", "code": "the code", "row": "the table row", "item": "the list item"}.get(
            instruction.kind, "the instruction"
        )


def _code_body(instruction: Instruction) -> list[str]:
    lines = instruction.text.split("\n")
    return lines[len(lines) - len(instruction.code_lines) :] if instruction.code_lines else lines


def _terms(words: set[str]) -> set[str]:
    """Content words of a description, plural and singular as one."""
    kept = {w for w in words if len(w) > 2 and w not in STOPWORDS and w not in BROAD_WORDS and w not in NARROW_WORDS}
    return {w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w for w in kept}


def _tool_names(text: str) -> set[str]:
    """Tool names of an allowed-tools value ("Read Grep Bash(git push:*)" -> Read, Grep, Bash)."""
    names = set()
    for token in text.replace(",", " ").split():
        name = token.split("(", 1)[0].strip()
        if name:
            names.add(name)
    return names


def word_change(old: str, new: str) -> str:
    """The first differing stretch of two texts, with two words of context: "'a friendly' -> 'a warm, friendly'"."""
    a, b = old.split(), new.split()
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op != "equal":
            start_a, start_b = max(i1 - 2, 0), max(j1 - 2, 0)
            return f"{quote(' '.join(a[start_a : i2 + 2]))} -> {quote(' '.join(b[start_b : j2 + 2]))}"
    return f"{quote(old)} -> {quote(new)}"
