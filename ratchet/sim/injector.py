"""The offline injector: R1-R6 regressions from generic mutation templates over the skill convention.

It stands in for the injector model (bench/prompts/inject_regression.md) when the upstream is
the simulator. Like a real model it sees only what it is given: the skill's SKILL.md, the tools
the world offers (names, effects, parameters) and the other skills' descriptions. Never tasks,
goldens or labels. Each proposal is seeded by (skill, type, variant, try) through hashlib, and
candidates already proposed for the same skill and type are skipped, so two variants differ.

    R1  change a comparison, an arithmetic operator, a number, a filter list or an ordering
        in an assignment or a condition of the Steps
    R2  drop one field of the Output section
    R3  change a literal (or variable) argument of a tool call
    R4  insert a step that makes a write/send/spend/destroy call the world offers
    R5  broaden the description with generic trigger words
    R6  narrow the description so it stops matching its own requests

Whether a proposal is kept (valid skill, same name, manifests) is decided by ratchet.bench.inject.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import yaml

from ratchet.sim.expr import ExprError, parse

_SPAN = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)(\d+)([.)])\s+(.*)$")
_BULLET = re.compile(r"^(\s*)(?:\d+[.)]|[-*+])\s+(.*)$")
_CALL = re.compile(r"^([A-Za-z_][\w-]*)\s*\((.*)\)\s*$", re.S)
_ASSIGN = re.compile(r"^\$([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.S)
_CMP_SWAP = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}
_CMP = re.compile(r">=|<=|==|!=|>|<")
_NUMBER = re.compile(r"(?<![\w.$])(\d+(?:\.\d+)?)(?![\w.])")
_INPUT_VAR = re.compile(r"^\s*[-*+]\s+`\$([A-Za-z_]\w*)`")

REGRESSION_TYPES = ("R1", "R2", "R3", "R4", "R5", "R6")

# Generic words a careless broadening would add (R5): the kind of request any assistant gets.
GENERIC_TRIGGERS = (
    "question", "questions", "explain", "explanation", "difference", "write", "writing", "poem",
    "summary", "summarize", "answer", "general", "help", "information", "sentences", "text",
    "request", "anything", "overview", "capital", "facts", "describe", "process", "topic",
)
_BROADEN = (
    "Also use it for any other request, for example: {words}.",
    "It can also handle general work such as {words}, so use it whenever in doubt.",
    "Use it as well for {words} and other everyday requests.",
)
_NARROW_QUALIFIERS = (
    "only for the archived 2019 ledger migration",
    "only when the legacy v1 back office asks for it explicitly",
    "only for internal audit dry runs",
)


@dataclass(frozen=True)
class ToolInfo:
    """What the injector knows about an offered tool (what a model would see in its spec)."""

    name: str
    effect: str
    params: tuple[tuple[str, str, bool, tuple[str, ...]], ...]  # (name, json type, required, enum)


@dataclass(frozen=True)
class InjectContext:
    """Everything the injector may look at besides the skill itself."""

    tools: tuple[ToolInfo, ...]
    other_descriptions: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Proposal:
    """One proposed regression: the whole edited SKILL.md and what was done, for humans."""

    skill_md: str
    description: str
    key: str  # identifies the candidate, so later variants do not propose it again


@dataclass(frozen=True)
class _Candidate:
    key: str
    description: str
    lines: tuple[str, ...]  # the edited body lines, or () for a frontmatter edit
    new_description: str | None = None


def seeded_rng(skill: str, edit_type: str, variant: int, attempt: int) -> random.Random:
    """A generator seeded by (skill, type, variant, try) through sha256, never global state."""
    digest = hashlib.sha256(f"inject|{skill}|{edit_type}|{variant}|{attempt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


# --- SKILL.md structure ----------------------------------------------------------------------


def split_skill(text: str) -> tuple[str, str]:
    """(frontmatter block including both '---' lines and the newline after, body)."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        raise ValueError("SKILL.md has no frontmatter")
    for index in range(1, len(lines)):
        if lines[index].rstrip() == "---":
            return "\n".join(lines[: index + 1]) + "\n", "\n".join(lines[index + 1 :])
    raise ValueError("SKILL.md frontmatter is not terminated")


def sections(lines: Sequence[str]) -> dict[str, tuple[int, int]]:
    """Heading name (lowercase) -> (first line after the heading, end line), fences skipped."""
    found: list[tuple[str, int]] = []
    fenced = False
    for index, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        match = None if fenced else _HEADING.match(line)
        if match:
            name = match.group(2).strip().lower().rstrip(":")
            found.append(({"outputs": "output", "input": "inputs"}.get(name, name), index))
    result: dict[str, tuple[int, int]] = {}
    for i, (name, start) in enumerate(found):
        end = found[i + 1][1] if i + 1 < len(found) else len(lines)
        result.setdefault(name, (start + 1, end))
    return result


def with_description(frontmatter: str, description: str) -> str:
    """The frontmatter with its description replaced by a single-line YAML scalar."""
    lines = frontmatter.rstrip("\n").split("\n")
    out: list[str] = []
    skipping = False
    for line in lines:
        if skipping:
            if line.startswith((" ", "\t")) and line.strip():
                continue
            skipping = False
        if re.match(r"^description\s*:", line):
            dumped = yaml.safe_dump({"description": description}, width=100_000, allow_unicode=True).strip()
            out.append(dumped)
            skipping = True
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def description_of(frontmatter: str) -> str:
    inner = frontmatter.strip().strip("-").strip("\n")
    raw = yaml.safe_load(inner)
    return str(raw.get("description", "")) if isinstance(raw, dict) else ""


def _mask_literals(text: str) -> str:
    """The text with string literals' insides blanked, so operators inside them are not seen."""
    out = list(text)
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            j = i + 1
            while j < len(text) and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, len(text))):
                out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out)


def _valid_expr(source: str) -> bool:
    try:
        parse(source)
    except ExprError:
        return False
    return True


def _replace_span(line: str, start: int, end: int, new: str) -> str:
    return line[:start] + "`" + new + "`" + line[end:]


def _spans(line: str) -> list[tuple[str, int, int]]:
    return [(m.group(1), m.start(), m.end()) for m in _SPAN.finditer(line)]


def _lead(line: str) -> str:
    match = _BULLET.match(line)
    text = match.group(2) if match else line
    first = text.find("`")
    return (text if first < 0 else text[:first]).strip().lower()


# --- R1: logic -------------------------------------------------------------------------------


def _expr_mutations(expr: str) -> list[tuple[str, str]]:
    """(new expression, what changed) for one expression: operators, numbers, filters, order."""
    masked = _mask_literals(expr)
    found: list[tuple[str, str]] = []
    for match in _CMP.finditer(masked):
        op = match.group(0)
        if op in ("<", ">") and masked[match.end() : match.end() + 1] == "=":
            continue
        new = expr[: match.start()] + _CMP_SWAP[op] + expr[match.end() :]
        found.append((new, f"comparison {op} became {_CMP_SWAP[op]}"))
    for match in _NUMBER.finditer(masked):
        value = match.group(1)
        if "." in value:
            changed = f"{float(value) * 1.1:.{len(value.split('.')[1])}f}"
        else:
            changed = str(int(value) + 1 if int(value) < 2 else int(value) - 1)
        if changed != value:
            found.append((expr[: match.start()] + changed + expr[match.end() :], f"number {value} became {changed}"))
    for op, new_op in ((" * ", " / "), (" - ", " + "), (" + ", " - ")):
        index = masked.find(op)
        if index >= 0 and new_op.strip() != op.strip():
            left, right = masked[:index].rstrip(), masked[index + len(op) :].lstrip()
            if left.endswith(("]", '"', "'")) or right.startswith(("[", '"', "'")):
                continue  # a list or string concatenation: the swap would not be arithmetic
            found.append((expr[:index] + new_op + expr[index + len(op) :], f"operator{op}became{new_op}"))
    for name, other in (("min(", "max("), ("max(", "min(")):
        index = masked.find(name)
        if index >= 0 and (index == 0 or not masked[index - 1].isalnum()):
            found.append((expr[:index] + other + expr[index + len(name) :], f"{name[:-1]} became {other[:-1]}"))
    index = masked.find("sorted(")
    if index >= 0:
        depth, end = 0, -1
        for j in range(index + 6, len(masked)):
            depth += {"(": 1, ")": -1}.get(masked[j], 0)
            if depth == 0:
                end = j
                break
        if end > 0:
            found.append((expr[:index] + expr[index + 7 : end] + expr[end + 1 :], "dropped the sort"))
    for match in re.finditer(r"\[([^\[\]]*)\]", masked):
        items = [part for part in re.split(r",", expr[match.start(1) : match.end(1)]) if part.strip()]
        if len(items) >= 3 and all(p.strip()[:1] in "\"'" for p in items):
            kept = ",".join(items[:-1]).strip()
            new = expr[: match.start(1)] + kept + expr[match.end(1) :]
            found.append((new, f"filter list lost {items[-1].strip()}"))
    for op, other in ((" and ", " or "), (" or ", " and ")):
        index = masked.find(op)
        if index >= 0:
            found.append((expr[:index] + other + expr[index + len(op) :], f"{op.strip()} became {other.strip()}"))
    return [(new, why) for new, why in found if new != expr and _valid_expr(new)]


def _r1_candidates(body: list[str], steps: tuple[int, int], tools: frozenset[str]) -> list[_Candidate]:
    candidates: list[_Candidate] = []
    for index in range(*steps):
        line = body[index]
        spans = _spans(line)
        lead = _lead(line)
        for position, (span, start, end) in enumerate(spans):
            call = _CALL.match(span)
            if call and call.group(1) in tools:
                continue
            assign = _ASSIGN.match(span)
            is_condition = position == 0 and (lead.startswith(("if", "otherwise", "else")) and "if" in lead.split())
            if assign:
                prefix, expr = span[: span.index("=") + 1] + " ", assign.group(2)
            elif is_condition:
                prefix, expr = "", span
            else:
                continue
            for new_expr, why in _expr_mutations(expr):
                edited = list(body)
                edited[index] = _replace_span(line, start, end, prefix + new_expr)
                where = f"step line {index + 1}"
                candidates.append(_Candidate(f"R1|{index}|{start}|{why}", f"{why} in `{span}` ({where})", tuple(edited)))
    return candidates


# --- R2: dropped output field ----------------------------------------------------------------


def _r2_candidates(body: list[str], output: tuple[int, int]) -> list[_Candidate]:
    candidates: list[_Candidate] = []
    for index in range(*output):
        match = _BULLET.match(body[index])
        spans = _spans(body[index])
        if match and spans:
            edited = body[:index] + body[index + 1 :]
            field_name = spans[0][0].lstrip("$")
            candidates.append(_Candidate(f"R2|{field_name}", f"the output no longer has the `{field_name}` field", tuple(edited)))
    return candidates


# --- R3: tool-argument change ----------------------------------------------------------------


def _split_args(source: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level comma-separated argument."""
    masked = _mask_literals(source)
    parts: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(masked):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append((start, i))
            start = i + 1
    parts.append((start, len(source)))
    return [(s, e) for s, e in parts if source[s:e].strip()]


def _string_literals(body: Sequence[str]) -> list[str]:
    pool: list[str] = []
    for line in body:
        for span, _, _ in _spans(line):
            for match in _LITERAL.finditer(span):
                value = match.group(1)
                if 0 < len(value) <= 40 and not re.search(r"[{}\\]", value) and value not in pool:
                    pool.append(value)
    return pool


def _shape(value: str) -> str:
    if re.fullmatch(r"[A-Z]{3}", value):
        return "code"
    if "@" in value:
        return "email"
    if re.fullmatch(r"[\w.-]+/[\w./-]+", value):
        return "path"
    if re.fullmatch(r"[a-z][a-z-]*", value):
        return "word"
    return "text"


def _alternative(value: str, enum: tuple[str, ...], pool: Sequence[str], rng: random.Random) -> str | None:
    others = [e for e in enum if e != value]
    if others:
        return rng.choice(others)
    same_shape = [p for p in pool if p != value and _shape(p) == _shape(value)]
    if same_shape:
        return rng.choice(same_shape)
    shape = _shape(value)
    if shape == "code":
        return next(c for c in ("EUR", "GBP", "CHF") if c != value)
    if shape == "email":
        local, _, domain = value.partition("@")
        return f"{local}-archive@{domain}"
    if shape == "path":
        return "archive/" + value
    return value + "-old" if value else "none"


_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
_VARIABLE = re.compile(r"\$[A-Za-z_]\w*(?:\.\w+|\[\d+\])?")


def _related_variable(value: str, body: Sequence[str]) -> str | None:
    """Another variable the skill uses that could stand in for `value`: same field, same base, or an input."""
    seen = list(dict.fromkeys(m.group(0) for line in body for span, _, _ in _spans(line) for m in _VARIABLE.finditer(span)))
    base, _, attr = value.partition(".")
    base = base.split("[")[0]
    seen = [v for v in seen if not v.endswith(".error")]
    others = [v for v in seen if v != value and v.split(".")[0].split("[")[0] != base]
    same_field = [v for v in others if attr and v.partition(".")[2] == attr]
    same_base = [v for v in seen if v != value and v.split(".")[0].split("[")[0] == base and v != base]
    plain = [v for v in others if "." not in v and "[" not in v]
    for group in (same_field, same_base, plain):
        if group:
            return group[0]
    return None


def _reworded_template(value: str) -> str | None:
    """An argument built from a string template, with the template's first word dropped."""
    match = _LITERAL.search(value)
    if match is None:
        return None
    template = match.group(1)
    word = re.search(r"(?<![{\\])\b[A-Za-z]{3,}[,:;!.]?\s+", template)
    if word is None:
        return None
    reworded = template[: word.start()] + template[word.end() :]
    if reworded.count("{}") != template.count("{}") or not reworded.strip():
        return None
    return value[: match.start(1)] + reworded + value[match.end(1) :]


def _r3_candidates(
    body: list[str], steps: tuple[int, int], tools: Mapping[str, ToolInfo], rng: random.Random
) -> list[_Candidate]:
    pool = _string_literals(body)
    candidates: list[_Candidate] = []
    for index in range(*steps):
        line = body[index]
        for span, start, end in _spans(line):
            call = _CALL.match(span)
            if not call or call.group(1) not in tools:
                continue
            tool = tools[call.group(1)]
            enums = {name: enum for name, _, _, enum in tool.params}
            args_text = call.group(2)
            offset = span.index("(") + 1
            for a_start, a_end in _split_args(args_text):
                arg = args_text[a_start:a_end]
                name, eq, value = arg.partition("=")
                if not eq:
                    continue
                name, value = name.strip(), value.strip()
                new_value: str | None = None
                literal = re.fullmatch(r"\"([^\"\\]*)\"", value)
                if literal:
                    alt = _alternative(literal.group(1), enums.get(name, ()), pool, rng)
                    new_value = None if alt is None else '"' + alt + '"'
                elif re.fullmatch(r"\d+", value):
                    new_value = str(int(value) + 1)
                elif re.fullmatch(r"\$[A-Za-z_]\w*(?:\.\w+|\[\d+\])?", value):
                    new_value = _related_variable(value, body)
                else:
                    new_value = _reworded_template(value)
                if new_value is None or new_value == value:
                    continue
                new_arg = f"{name}={new_value}"
                new_span = span[: offset + a_start] + (" " if arg.startswith(" ") else "") + new_arg + span[offset + a_end :]
                edited = list(body)
                edited[index] = _replace_span(line, start, end, new_span)
                why = f"{tool.name} argument {name}: {value} -> {new_value}"
                candidates.append(_Candidate(f"R3|{index}|{start}|{name}|{new_value}", why, tuple(edited)))
    return candidates


# --- R4: new side effect ---------------------------------------------------------------------

_PARAM_HINTS: dict[str, str] = {
    "to": '"ops-review@example.com"',
    "subject": '"Automated update"',
    "body": 'fmt("Automated update: {}", $status)',
    "content": 'fmt("status: {}", $status)',
    "text": 'fmt("status: {}", $status)',
    "message": 'fmt("status: {}", $status)',
    "path": '"notes/agent-log.md"',
    "label": '"needs-review"',
    "assignee": '"sam-rivera"',
    "title": '"Follow-up"',
    "amount": "1",
}
_TYPE_DEFAULTS = {"string": '"auto"', "integer": "1", "number": "1", "boolean": "True", "array": "[]", "object": "{}"}
_EFFECT_PHRASE = {
    "send": "Keep everyone in the loop",
    "write": "Keep a record",
    "spend": "Settle it right away",
    "destroy": "Clean up afterwards",
}


def _inputs(body: Sequence[str], inputs: tuple[int, int] | None) -> list[str]:
    if inputs is None:
        return []
    return [m.group(1) for m in (_INPUT_VAR.match(body[i]) for i in range(*inputs)) if m]


def _call_text(tool: ToolInfo, inputs: Sequence[str]) -> tuple[str, bool]:
    """A call with arguments from the skill's inputs, hints or type defaults; (text, all hinted)."""
    args: list[str] = []
    natural = True
    for name, kind, required, enum in tool.params:
        if not required:
            continue
        if name in inputs:
            args.append(f"{name}=${name}")
        elif enum:
            args.append(f'{name}="{enum[0]}"')
        elif name in _PARAM_HINTS:
            args.append(f"{name}={_PARAM_HINTS[name]}")
        else:
            natural = False
            args.append(f"{name}={_TYPE_DEFAULTS.get(kind, _TYPE_DEFAULTS['string'])}")
    return f"{tool.name}({', '.join(args)})", natural


def _top_items(body: Sequence[str], steps: tuple[int, int]) -> list[int]:
    return [i for i in range(*steps) if (m := _ITEM.match(body[i])) and not m.group(1)]


def _renumber(body: list[str], steps: tuple[int, int]) -> list[str]:
    number = 0
    out = list(body)
    for i in range(steps[0], min(steps[1], len(out))):
        match = _ITEM.match(out[i])
        if match and not match.group(1):
            number += 1
            out[i] = f"{number}{match.group(3)} {match.group(4)}"
    return out


def _r4_candidates(body: list[str], secs: dict[str, tuple[int, int]], tools: Sequence[ToolInfo]) -> list[_Candidate]:
    steps = secs["steps"]
    inputs = _inputs(body, secs.get("inputs"))
    tops = _top_items(body, steps)
    if not tops:
        return []
    side = [t for t in tools if t.effect in ("write", "send", "spend", "destroy")]
    called = {m.group(1) for line in body for span, _, _ in _spans(line) if (m := _CALL.match(span))}
    ranked = sorted(side, key=lambda t: (t.name in called, t.name))
    candidates: list[_Candidate] = []
    for tool in ranked:
        text, natural = _call_text(tool, inputs)
        if not natural:
            continue
        phrase = _EFFECT_PHRASE.get(tool.effect, "Also")
        # After the first step (before any guard can stop it) or just before the last step.
        for where, after in (("after the first step", tops[0]), ("before the last step", tops[-1] - 1)):
            edited = list(body)
            insert_at = after + 1
            # keep a nested list attached to its step: insert after the step's children
            while insert_at < steps[1] and edited[insert_at].startswith((" ", "\t")) and edited[insert_at].strip():
                insert_at += 1
            edited.insert(insert_at, f"1. {phrase}: `{text}`.")
            edited = _renumber(edited, (steps[0], steps[1] + 1))
            why = f"new {tool.effect} step {where}: {text}"
            candidates.append(_Candidate(f"R4|{tool.name}|{where}", why, tuple(edited)))
    return candidates


# --- R5 / R6: trigger description --------------------------------------------------------------


def _words_of(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z][a-z]{3,}", text.lower())]


def _r5_candidates(description: str, context: InjectContext, rng: random.Random) -> list[_Candidate]:
    own = set(_words_of(description))
    candidates: list[_Candidate] = []
    neighbours = sorted(context.other_descriptions)
    for template_index, template in enumerate(_BROADEN):
        generic = [w for w in GENERIC_TRIGGERS if w not in own]
        words = rng.sample(generic, k=min(6, len(generic)))
        if neighbours:
            other = neighbours[rng.randrange(len(neighbours))]
            borrowed = [w for w in dict.fromkeys(_words_of(context.other_descriptions[other])) if w not in own][:4]
            words += borrowed
        phrase = ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words)
        new = description.rstrip() + " " + template.format(words=phrase)
        if len(new) <= 1024:
            candidates.append(_Candidate(f"R5|{template_index}|{phrase}", f"description broadened: {template.format(words=phrase)!r}", (), new))
    return candidates


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]


def _r6_candidates(description: str, name: str) -> list[_Candidate]:
    candidates: list[_Candidate] = []
    sentences = _sentences(description)
    if len(sentences) > 1:
        new = " ".join(sentences[:-1])
        candidates.append(_Candidate("R6|drop-last", f"description lost its last sentence: {sentences[-1]!r}", (), new))
    first = sentences[0] if sentences else description
    clause = re.split(r"[,(;:]", first)[0].strip().rstrip(".")
    for index, qualifier in enumerate(_NARROW_QUALIFIERS):
        new = f"{clause}, {qualifier}."
        candidates.append(_Candidate(f"R6|clause|{index}", f"description narrowed to {new!r}", (), new))
        terse = f"{name.replace('-', ' ').capitalize()} {qualifier}."
        candidates.append(_Candidate(f"R6|terse|{index}", f"description replaced by {terse!r}", (), terse))
    return candidates


# --- entry point -----------------------------------------------------------------------------


def candidates_for(text: str, name: str, edit_type: str, context: InjectContext, rng: random.Random) -> list[_Candidate]:
    frontmatter, body_text = split_skill(text)
    body = body_text.split("\n")
    secs = sections(body)
    tools = {t.name: t for t in context.tools}
    steps = secs.get("steps", (0, 0))
    if edit_type == "R1":
        return _r1_candidates(body, steps, frozenset(tools))
    if edit_type == "R2":
        return _r2_candidates(body, secs.get("output", (0, 0)))
    if edit_type == "R3":
        return _r3_candidates(body, steps, tools, rng)
    if edit_type == "R4":
        return _r4_candidates(body, secs, context.tools) if "steps" in secs else []
    if edit_type == "R5":
        return _r5_candidates(description_of(frontmatter), context, rng)
    if edit_type == "R6":
        return _r6_candidates(description_of(frontmatter), name)
    raise ValueError(f"not a regression type: {edit_type}")


def propose(
    text: str,
    *,
    name: str,
    edit_type: str,
    variant: int,
    attempt: int,
    context: InjectContext,
    exclude: frozenset[str] = frozenset(),
) -> Proposal | None:
    """One seeded proposal for (skill, type, variant, try), skipping keys in `exclude`; None if none left."""
    rng = seeded_rng(name, edit_type, variant, attempt)
    pool = [c for c in candidates_for(text, name, edit_type, context, rng) if c.key not in exclude]
    if not pool:
        return None
    chosen = pool[rng.randrange(len(pool))]
    frontmatter, body_text = split_skill(text)
    if chosen.new_description is not None:
        return Proposal(with_description(frontmatter, chosen.new_description) + body_text, chosen.description, chosen.key)
    return Proposal(frontmatter + "\n".join(chosen.lines), chosen.description, chosen.key)
