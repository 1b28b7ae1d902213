"""R1-R3 of the offline injector: logic, output-field and tool-argument operators over the Steps.

R1  change a comparison, an arithmetic operator, a number, a filter list or an ordering
    in an assignment or a condition of the Steps
R2  drop one field of the Output section
R3  change a literal (or variable) argument of a tool call
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence

from ratchet.sim.expr import ExprError, parse
from ratchet.sim.mutate_common import (
    BULLET,
    CALL,
    Candidate,
    ToolInfo,
    code_spans,
    lead_text,
    mask_literals,
    replace_span,
)

_ASSIGN = re.compile(r"^\$([A-Za-z_]\w*)\s*=(?!=)\s*(.+)$", re.S)
_CMP_SWAP = {">=": ">", ">": ">=", "<=": "<", "<": "<=", "==": "!=", "!=": "=="}
_CMP = re.compile(r">=|<=|==|!=|>|<")
_NUMBER = re.compile(r"(?<![\w.$])(\d+(?:\.\d+)?)(?![\w.])")


def _valid_expr(source: str) -> bool:
    try:
        parse(source)
    except ExprError:
        return False
    return True


# --- R1: logic -------------------------------------------------------------------------------


def _expr_mutations(expr: str) -> list[tuple[str, str]]:
    """(new expression, what changed) for one expression: operators, numbers, filters, order."""
    masked = mask_literals(expr)
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


def r1_candidates(body: list[str], steps: tuple[int, int], tools: frozenset[str]) -> list[Candidate]:
    candidates: list[Candidate] = []
    for index in range(*steps):
        line = body[index]
        spans = code_spans(line)
        lead = lead_text(line)
        for position, (span, start, end) in enumerate(spans):
            call = CALL.match(span)
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
                edited[index] = replace_span(line, start, end, prefix + new_expr)
                where = f"step line {index + 1}"
                candidates.append(Candidate(f"R1|{index}|{start}|{why}", f"{why} in `{span}` ({where})", tuple(edited)))
    return candidates


# --- R2: dropped output field ----------------------------------------------------------------


def r2_candidates(body: list[str], output: tuple[int, int]) -> list[Candidate]:
    candidates: list[Candidate] = []
    for index in range(*output):
        match = BULLET.match(body[index])
        spans = code_spans(body[index])
        if match and spans:
            edited = body[:index] + body[index + 1 :]
            field_name = spans[0][0].lstrip("$")
            candidates.append(
                Candidate(f"R2|{field_name}", f"the output no longer has the `{field_name}` field", tuple(edited))
            )
    return candidates


# --- R3: tool-argument change ----------------------------------------------------------------


def _split_args(source: str) -> list[tuple[int, int]]:
    """(start, end) of each top-level comma-separated argument."""
    masked = mask_literals(source)
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
        for span, _, _ in code_spans(line):
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
    seen = list(
        dict.fromkeys(m.group(0) for line in body for span, _, _ in code_spans(line) for m in _VARIABLE.finditer(span))
    )
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


def r3_candidates(
    body: list[str], steps: tuple[int, int], tools: Mapping[str, ToolInfo], rng: random.Random
) -> list[Candidate]:
    pool = _string_literals(body)
    candidates: list[Candidate] = []
    for index in range(*steps):
        line = body[index]
        for span, start, end in code_spans(line):
            call = CALL.match(span)
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
                new_span = (
                    span[: offset + a_start] + (" " if arg.startswith(" ") else "") + new_arg + span[offset + a_end :]
                )
                edited = list(body)
                edited[index] = replace_span(line, start, end, new_span)
                why = f"{tool.name} argument {name}: {value} -> {new_value}"
                candidates.append(Candidate(f"R3|{index}|{start}|{name}|{new_value}", why, tuple(edited)))
    return candidates
