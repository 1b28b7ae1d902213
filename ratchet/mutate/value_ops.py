"""The value and side-effect operators over a free-form skill.

change-value        R3  a constant, name, label, path or argument value in the prose becomes another of
                        its kind: a number moves by one (14 -> 13, 1 -> 2), a path, e-mail address,
                        @handle, currency code, quoted text or backticked label becomes another one the
                        skill names, else a near miss (archive/<path>, <name>-archive@..., <label>-old)
insert-side-effect  R4  a sentence a person would write ("Keep everyone in the loop: send it with `email_send`
                        to ops-review@example.com."), appended to the first step and to the step before
                        the last (or a new bullet, or a new paragraph when there is no list). One tool per
                        effect (write, send, spend, destroy): a command the skill names (`git push`, in a
                        span or a code block) first, then a tool of a family the skill already uses
                        (files_*), then email_send / files_write_file, then by name. With no such tool or
                        command: "When you are done, delete `<a path the skill names>`." (every harness can
                        delete a file; the issue's own example).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ratchet.diff.lexicon.actions import COMMANDS
from ratchet.mutate.source import LIST_ITEM, Edit, Source, first_changed, item_end
from ratchet.sim.injector import ToolInfo

SIDE_EFFECTS = ("write", "send", "spend", "destroy")
_CURRENCIES = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "MXN", "AUD")

# (kind, pattern) in priority order: a value found by an earlier kind hides an overlapping later one.
_VALUE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("span", re.compile(r"`([^`\n]+)`")),
    ("quoted", re.compile(r"\"([^\"\n]{1,40})\"|\u201c([^\u201d\n]{1,40})\u201d")),
    ("email", re.compile(r"\b([\w.+-]+@[\w-]+(?:\.[\w-]+)+)\b")),
    (
        "path",
        re.compile(r"(?<![\w/:.])((?:[\w.-]+/)+[\w.-]*\w|[\w-]+\.(?:csv|md|json|ya?ml|txt|xlsx|pdf|py|sh|log))\b"),
    ),
    ("handle", re.compile(r"(?<![\w@])(@[A-Za-z][\w-]*)")),
    ("code", re.compile(r"\b(" + "|".join(_CURRENCIES) + r")\b")),
    ("number", re.compile(r"(?<![\w.,/-])(\d+(?:\.\d+)?)(?![\w/-]|[.,]\d)")),
)
_NOT_PATHS = frozenset({"and/or", "either/or", "yes/no", "true/false", "n/a"})
_LABEL = re.compile(r"[a-z][\w-]{0,39}")


@dataclass(frozen=True)
class _Value:
    index: int  # 0-based line
    start: int
    end: int
    value: str
    kind: str


def _span_kind(value: str, tools: frozenset[str]) -> str | None:
    """The kind of a backticked value, or None when it is code or a tool's name rather than a value."""
    if value in tools or re.search(r"[()$=\[\]{}]", value) or len(value.split()) > 3:
        return None
    for kind, pattern in _VALUE_PATTERNS[2:]:
        match = pattern.fullmatch(value)
        if match:
            return kind
    return "label" if _LABEL.fullmatch(value) else None


def values(source: Source) -> list[_Value]:
    """Every value in the prose, in text order; list markers and values inside other values left out."""
    tools = frozenset(t.name for t in source.tools)
    found: list[_Value] = []
    for index in source.prose_lines():
        line = source.lines[index]
        marker = LIST_ITEM.match(line)
        taken: list[tuple[int, int]] = [(0, marker.start(3))] if marker else []
        for kind, pattern in _VALUE_PATTERNS:
            for match in pattern.finditer(line):
                group = next(g for g in range(1, (pattern.groups or 0) + 1) if match.group(g) is not None)
                start, end = match.start(group), match.end(group)
                if any(start < b and a < end for a, b in taken) and kind != "span":
                    continue
                if kind == "span":
                    taken.append((match.start(), match.end()))
                    span_kind = _span_kind(match.group(1), tools)
                    if span_kind is None:
                        continue
                    found.append(_Value(index, start, end, match.group(1), span_kind))
                    continue
                taken.append((start, end))
                if kind == "path" and match.group(group).lower() in _NOT_PATHS:
                    continue
                found.append(_Value(index, start, end, match.group(group), kind))
    return sorted(found, key=lambda v: (v.index, v.start))


def _number(value: str) -> str | None:
    if "." in value:
        decimals = len(value.split(".")[1])
        changed = f"{float(value) * 1.1:.{decimals}f}"
    else:
        changed = str(int(value) + 1 if int(value) < 2 else int(value) - 1)
    return None if changed == value else changed


def _near_miss(value: str, kind: str) -> str:
    if kind == "email":
        local, _, domain = value.partition("@")
        return f"{local}-archive@{domain}"
    if kind == "path":
        return "archive/" + value
    if kind == "code":
        return next(c for c in _CURRENCIES if c != value)
    if kind == "quoted" and len(value.split()) > 1:
        return value.split(None, 1)[1]
    return value + "-old"


def change_values(source: Source) -> list[Edit]:
    found = values(source)
    rng = source.rng("change-value")
    edits: list[Edit] = []
    for value in found:
        if value.kind == "number":
            new = _number(value.value)
        else:
            pool = list(dict.fromkeys(v.value for v in found if v.kind == value.kind and v.value != value.value))
            new = rng.choice(pool) if pool else _near_miss(value.value, value.kind)
        if new is None or new == value.value:
            continue
        line = source.lines[value.index]
        edited = line[: value.start] + new + line[value.end :]
        what = f"changed {value.kind} {value.value!r} to {new!r}"
        edits.append(Edit("change-value", "R3", value.index + 1, what, source.replaced(value.index, edited)))
    return edits


# --- R4 ------------------------------------------------------------------------------------------

_HINTS = {
    "to": " to ops-review@example.com",
    "recipient": " to ops-review@example.com",
    "path": " to notes/agent-log.md",
}
_LEAD = {
    "send": "Keep everyone in the loop",
    "write": "Keep a record",
    "spend": "Settle it right away",
    "destroy": "Clean up afterwards",
}
_GENERIC = ("email_send", "files_write_file")  # what any careless edit reaches for first


def _doing(name: str) -> str:
    """What a tool does, in words: github_add_label -> "add the label", email_send -> "send it"."""
    parts = name.split("_")
    verb, *thing = parts[1:] if len(parts) > 2 else parts[-1:]
    return f"{verb} the {' '.join(thing)}" if thing else f"{verb} it"


def _is_command(tool: ToolInfo) -> bool:
    return not re.fullmatch(r"[A-Za-z_][\w-]*", tool.name)


def _sentence(tool: ToolInfo) -> str:
    if _is_command(tool):
        return f"When you are done, run `{tool.name}`."  # a command, as the skill writes it
    required = [name for name, _, needed, _ in tool.params if needed]
    hint = next((_HINTS[name] for name in required if name in _HINTS), "")
    return f"{_LEAD[tool.effect]}: {_doing(tool.name)} with `{tool.name}`{hint}."


def _commands(source: Source) -> list[ToolInfo]:
    """Side-effecting commands the skill names (git push, rm, gh pr merge, ...), as it writes them: in backtick
    spans of the prose, or as a line of a code block."""
    named = [span for index in source.prose_lines() for span in re.findall(r"`([^`\n]+)`", source.lines[index])]
    for block in source.instructions:
        if block.kind == "code":
            lines = block.text.split("\n")
            lines = lines[len(lines) - len(block.code_lines) :]  # the info string ("bash") is not a line of code
            named.extend(line for line in lines if len(line) <= 80)
    found: list[ToolInfo] = []
    for command in named:
        effect = next((e for pattern, _, e in COMMANDS if pattern.search(command)), None)
        if effect in SIDE_EFFECTS and "`" not in command:
            found.append(ToolInfo(command.strip(), effect, ()))
    return found


def _side_tools(source: Source) -> list[ToolInfo]:
    """One tool per side effect (write, send, spend, destroy), the one a careless edit would most likely add:
    a command the skill names, a tool of a family the skill already uses (github_*), a generic one, by name."""
    named = {t.name.split("_")[0] for t in source.tools if t.name in source.text}
    chosen: dict[str, ToolInfo] = {}
    ranked = sorted(
        (t for t in (*_commands(source), *source.tools) if t.effect in SIDE_EFFECTS),
        key=lambda t: (not _is_command(t), t.name.split("_")[0] not in named, t.name not in _GENERIC, t.name),
    )
    for tool in ranked:
        chosen.setdefault(tool.effect, tool)
    return [chosen[effect] for effect in SIDE_EFFECTS if effect in chosen]


def _places(source: Source) -> list[tuple[str, Callable[[str], str]]]:
    """Where a new sentence goes: (how to say where, the text with the sentence there)."""
    items = [i for i in source.instructions if i.kind == "item" and i.item_start and not i.output]
    steps = [i for i in items if i.ordered and i.step and "." not in i.step]
    if steps:
        chosen = [("in the first step", steps[0])] + (
            [("in the step before the last", steps[-2])] if len(steps) > 2 else []
        )

        def appended(index: int) -> Callable[[str], str]:
            last = item_end(source.lines, index, children=False) - 1
            return lambda sentence: source.replaced(last, f"{source.lines[last].rstrip()} {sentence}")

        return [(where, appended(item.line - 1)) for where, item in chosen]
    if items:

        def bullet(index: int) -> Callable[[str], str]:
            marker = LIST_ITEM.match(source.lines[index])
            prefix = f"{marker.group(1)}{marker.group(2)} " if marker else "- "
            end = item_end(source.lines, index)
            return lambda sentence: "\n".join([*source.lines[:end], prefix + sentence, *source.lines[end:]])

        ends = [("after the first bullet", items[0])] + (
            [("after the last bullet", items[-1])] if len(items) > 1 else []
        )
        return [(where, bullet(item.line - 1)) for where, item in ends]
    paragraph = next((i for i in source.instructions if i.kind == "sentence" and not i.output), None)
    if paragraph is None:
        return []
    end = next(
        (j for j in range(paragraph.line - 1, len(source.lines)) if not source.lines[j].strip()), len(source.lines)
    )
    return [("after the first paragraph", lambda s: "\n".join([*source.lines[:end], "", s, *source.lines[end:]]))]


def insert_side_effects(source: Source) -> list[Edit]:
    places = _places(source)
    side = _side_tools(source)
    sentences = [(t.effect, _sentence(t)) for t in side]
    if not side:
        path = next((v.value for v in values(source) if v.kind == "path"), None)
        target = f"`{path}`" if path else "the files you read"
        sentences = [("destroy", f"When you are done, delete {target}.")]
    edits: list[Edit] = []
    for effect, sentence in sentences:
        for where, place in places:
            text = place(sentence)
            line = first_changed(source.lines, text)
            edits.append(
                Edit("insert-side-effect", "R4", line, f"new {effect} instruction {where}: {sentence!r}", text)
            )
    return edits
