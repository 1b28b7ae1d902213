"""A small, safe expression language for skill programs (parsed with `ast`, never eval/exec).

Allowed: literals, `$vars`, attribute or key access (`$issue.title`, `$row["date"]`; a
missing key is None), arithmetic, comparisons, `in`, and/or/not, `a if c else b`, list/dict
literals and calls to the functions in FUNCTIONS. Anything else is an ExprError.
"""

from __future__ import annotations

import ast
import csv
import datetime as dt
import functools
import io
import json
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

from ratchet.core.kept import Kept

VAR_PREFIX = "_v_"
_VAR = re.compile(r"\$([A-Za-z_]\w*)")
_MAX_REPEAT = 10_000


class ExprError(Exception):
    """An expression the evaluator refuses or cannot compute."""


def to_python(source: str) -> str:
    """`$name` -> a plain identifier, so the text parses as a Python expression."""
    return _VAR.sub(lambda m: VAR_PREFIX + m.group(1), source.strip())


def _date(value: Any) -> dt.date:
    try:
        return dt.date.fromisoformat(str(value)[:10])
    except ValueError:
        raise ExprError(f"not a YYYY-MM-DD date: {value!r}") from None


def weekday(value: Any) -> int:
    """0 = Monday ... 6 = Sunday."""
    return _date(value).weekday()


def weekday_name(value: Any) -> str:
    return _date(value).strftime("%A")


def previous_business_day(value: Any) -> str:
    """The last Monday-to-Friday strictly before the date."""
    day = _date(value) - dt.timedelta(days=1)
    while day.weekday() >= 5:
        day -= dt.timedelta(days=1)
    return day.isoformat()


def parse_csv(text: Any) -> list[dict[str, str]]:
    rows = csv.DictReader(io.StringIO(str(text or "")))
    return [{(k or "").strip(): (v or "").strip() for k, v in row.items()} for row in rows]


def parse_json(text: Any) -> Any:
    try:
        return json.loads(str(text))
    except json.JSONDecodeError as exc:
        raise ExprError(f"not JSON: {exc.msg}") from None


def fmt(template: str, *values: Any) -> str:
    """Fill each `{}` in order (only bare `{}`: no attribute access through format specs)."""
    parts = str(template).split("{}")
    if len(parts) - 1 != len(values):
        raise ExprError(f"fmt: {len(parts) - 1} placeholders, {len(values)} values")
    out = [parts[0]]
    for value, part in zip(values, parts[1:], strict=True):
        out.extend([render_scalar(value), part])
    return "".join(out)


def render_scalar(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(round(value, 6))
    return str(value)


def money(value: Any) -> str:
    """An amount with exactly two decimals (12.5 -> "12.50")."""
    return f"{float(value):.2f}"


def any_of(text: Any, words: Any) -> bool:
    haystack = str(text or "").lower()
    return any(str(w).lower() in haystack for w in (words or []))


def re_find(pattern: Any, text: Any) -> str | None:
    """First capture group (or the whole match) of a regex in the text, else None."""
    match = re.search(str(pattern), str(text or ""))
    if match is None:
        return None
    return match.group(1) if match.groups() else match.group(0)


def re_findall(pattern: Any, text: Any) -> list[Any]:
    """Every match of a regex in the text: strings for zero or one group, lists for several."""
    try:
        found = re.findall(str(pattern), str(text or ""))
    except re.error as exc:
        raise ExprError(f"bad pattern: {exc}") from None
    return [list(m) if isinstance(m, tuple) else m for m in found]


def get(mapping: Any, key: Any, default: Any = None) -> Any:
    return mapping.get(key, default) if isinstance(mapping, Mapping) else default


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "round": round,
    "sum": sum,
    "len": len,
    "min": min,
    "max": max,
    "sorted": sorted,
    "abs": abs,
    "float": float,
    "int": int,
    "str": render_scalar,
    "lower": lambda s: str(s or "").lower(),
    "upper": lambda s: str(s or "").upper(),
    "strip": lambda s: str(s or "").strip(),
    "join": lambda items, sep=", ": str(sep).join(render_scalar(i) for i in items or []),
    "keys": lambda m: sorted(m) if isinstance(m, Mapping) else [],
    "unique": lambda items: list(dict.fromkeys(items or [])),
    "weekday": weekday,
    "weekday_name": weekday_name,
    "previous_business_day": previous_business_day,
    "parse_csv": parse_csv,
    "parse_json": parse_json,
    "fmt": fmt,
    "any_of": any_of,
    "money": money,
    "re_find": re_find,
    "re_findall": re_findall,
    "get": get,
}

_BIN: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_CMP: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}


def parse(source: str) -> ast.expr:
    try:
        return ast.parse(to_python(source), mode="eval").body
    except SyntaxError:
        raise ExprError(f"not an expression: {source!r}") from None


Compiled = Callable[[Mapping[str, Any]], Any]


@functools.lru_cache(maxsize=4096)
def _compiled(source: str) -> Compiled:
    """parse(source) compiled (_compile), kept: a program re-runs from the top on every model call, so it
    evaluates the same few expressions thousands of times in a run."""
    return _compile(parse(source))


_NODES: Kept[ast.expr, Compiled] = Kept(4096)
"""Compiled trees a program holds (a call's arguments), by the tree itself: kept alive while kept, so its
identity is never another tree's. Only evaluate reads them, and nothing changes a program's trees (mutation
operators call parse and get a tree of their own)."""


def evaluate(source: str | ast.expr, env: Mapping[str, Any]) -> Any:
    """Evaluate an expression against `env` ({name without $: value})."""
    run = _compiled(source) if isinstance(source, str) else _NODES.get(source, lambda: _compile(source))
    try:
        return run(env)
    except ExprError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError) as exc:
        raise ExprError(f"{type(exc).__name__}: {exc}") from None


def _too_long(left: Any, right: Any) -> bool:
    """Refuse `"x" * 10**9`-style repetition."""
    count = left if isinstance(right, (str, list)) else right if isinstance(left, (str, list)) else 0
    return isinstance(count, int) and abs(count) > _MAX_REPEAT


def _member(container: Any, key: Any) -> Any:
    if isinstance(container, Mapping):
        return container.get(key)
    if isinstance(container, (list, tuple, str)) and isinstance(key, int) and -len(container) <= key < len(container):
        return container[key]
    return None


def _compile(node: ast.expr) -> Compiled:
    """`node` as a function of the env that computes what walking the tree computes, in the same order and with
    the same errors: a part that is not allowed raises when it is reached, never before (the branch of an
    `if` not taken never raises). About three times faster than walking the tree on every evaluation."""
    if isinstance(node, ast.Constant):
        value = node.value
        return lambda env: value
    if isinstance(node, ast.Name):
        if node.id.startswith(VAR_PREFIX):
            name = node.id[len(VAR_PREFIX) :]
            return lambda env: env.get(name)
        return _refuse(f"unknown name {node.id!r} (variables start with $)")
    if isinstance(node, ast.Attribute):
        inner, attr = _compile(node.value), node.attr
        return lambda env: _member(inner(env), attr)
    if isinstance(node, ast.Subscript):
        inner, key = _compile(node.value), _compile(node.slice)
        return lambda env: _member(inner(env), key(env))
    if isinstance(node, ast.List | ast.Tuple):
        items = [_compile(e) for e in node.elts]
        return lambda env: [item(env) for item in items]
    if isinstance(node, ast.Dict):
        pairs = [(None if k is None else _compile(k), _compile(v)) for k, v in zip(node.keys, node.values, strict=True)]
        return lambda env: {None if k is None else k(env): v(env) for k, v in pairs}
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        return _binary(_compile(node.left), _compile(node.right), _BIN[type(node.op)], isinstance(node.op, ast.Mult))
    if isinstance(node, ast.UnaryOp):
        return _unary(_compile(node.operand), node)
    if isinstance(node, ast.BoolOp):
        return _boolean([_compile(v) for v in node.values], isinstance(node.op, ast.And))
    if isinstance(node, ast.Compare):
        ops = [
            (type(op), _CMP.get(type(op)), _compile(right))
            for op, right in zip(node.ops, node.comparators, strict=True)
        ]
        return _comparison(_compile(node.left), ops)
    if isinstance(node, ast.IfExp):
        test, body, orelse = _compile(node.test), _compile(node.body), _compile(node.orelse)
        return lambda env: body(env) if test(env) else orelse(env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords:
            return _refuse(f"{node.func.id}(): keyword arguments are not supported")
        function, args = FUNCTIONS[node.func.id], [_compile(a) for a in node.args]
        return lambda env: function(*[arg(env) for arg in args])
    return _refuse_node(node)


def _refuse(message: str) -> Compiled:
    def refused(env: Mapping[str, Any]) -> Any:
        raise ExprError(message)

    return refused


def _refuse_node(node: ast.expr) -> Compiled:
    def refused(env: Mapping[str, Any]) -> Any:
        raise ExprError(f"not allowed in a skill expression: {ast.unparse(node)!r}")

    return refused


def _binary(left: Compiled, right: Compiled, op: Callable[[Any, Any], Any], mult: bool) -> Compiled:
    def binary(env: Mapping[str, Any]) -> Any:
        a, b = left(env), right(env)
        if mult and _too_long(a, b):
            raise ExprError("repetition too large")
        return op(a, b)

    return binary


def _unary(operand: Compiled, node: ast.UnaryOp) -> Compiled:
    if isinstance(node.op, ast.Not):
        return lambda env: not operand(env)
    if isinstance(node.op, ast.USub):
        return lambda env: -operand(env)
    if isinstance(node.op, ast.UAdd):
        return lambda env: +operand(env)
    refused = _refuse_node(node)

    def other(env: Mapping[str, Any]) -> Any:
        operand(env)  # reached before the refusal, as when the tree was walked
        return refused(env)

    return other


def _boolean(values: list[Compiled], conjunction: bool) -> Compiled:
    def boolean(env: Mapping[str, Any]) -> Any:
        result: Any = conjunction
        for value in values:
            result = value(env)
            if bool(result) != conjunction:
                return result
        return result

    return boolean


def _comparison(left: Compiled, ops: list[tuple[type, Callable[[Any, Any], Any] | None, Compiled]]) -> Compiled:
    def comparison(env: Mapping[str, Any]) -> Any:
        a = left(env)
        for kind, compare, right in ops:
            b = right(env)
            if compare is None:
                raise KeyError(kind)  # an operator with no entry in _CMP, as its lookup raised
            if not compare(a, b):
                return False
            a = b
        return True

    return comparison
