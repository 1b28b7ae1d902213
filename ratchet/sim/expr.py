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


@functools.lru_cache(maxsize=4096)
def _parsed(source: str) -> ast.expr:
    """parse(source), kept: a program re-runs from the top on every model call, so it evaluates the same few
    expressions thousands of times in a run. Only evaluate reads the kept trees, and never changes them
    (mutation operators call parse and get a tree of their own)."""
    return parse(source)


def evaluate(source: str | ast.expr, env: Mapping[str, Any]) -> Any:
    """Evaluate an expression against `env` ({name without $: value})."""
    node = _parsed(source) if isinstance(source, str) else source
    try:
        return _eval(node, env)
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


def _eval(node: ast.expr, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id.startswith(VAR_PREFIX):
            return env.get(node.id[len(VAR_PREFIX) :])
        raise ExprError(f"unknown name {node.id!r} (variables start with $)")
    if isinstance(node, ast.Attribute):
        return _member(_eval(node.value, env), node.attr)
    if isinstance(node, ast.Subscript):
        return _member(_eval(node.value, env), _eval(node.slice, env))
    if isinstance(node, ast.List | ast.Tuple):
        return [_eval(e, env) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _eval(k, env) if k is not None else None: _eval(v, env) for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Mult) and _too_long(left, right):
            raise ExprError("repetition too large")
        return _BIN[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env)
        if isinstance(node.op, ast.Not):
            return not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            result: Any = True
            for value_node in node.values:
                result = _eval(value_node, env)
                if not result:
                    return result
            return result
        result = False
        for value_node in node.values:
            result = _eval(value_node, env)
            if result:
                return result
        return result
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _eval(right_node, env)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _eval(node.body, env) if _eval(node.test, env) else _eval(node.orelse, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords:
            raise ExprError(f"{node.func.id}(): keyword arguments are not supported")
        args = [_eval(a, env) for a in node.args]
        return FUNCTIONS[node.func.id](*args)
    raise ExprError(f"not allowed in a skill expression: {ast.unparse(node)!r}")
