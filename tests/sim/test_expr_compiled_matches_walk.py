"""ratchet.sim.expr compiles an expression once and runs the compiled form on every evaluation: it computes what
walking the tree on each evaluation computed (the walk is kept here as the reference), the same value or the
same ExprError, over generated expressions: allowed and refused parts, untaken branches, bad operands."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ratchet.sim.expr import _BIN, _CMP, FUNCTIONS, VAR_PREFIX, ExprError, _member, _too_long, evaluate, parse


def _by_walking(source: str, env: Mapping[str, Any]) -> Any:
    node = parse(source)
    try:
        return _walk(node, env)
    except ExprError:
        raise
    except (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError) as exc:
        raise ExprError(f"{type(exc).__name__}: {exc}") from None


def _walk(node: ast.expr, env: Mapping[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id.startswith(VAR_PREFIX):
            return env.get(node.id[len(VAR_PREFIX) :])
        raise ExprError(f"unknown name {node.id!r} (variables start with $)")
    if isinstance(node, ast.Attribute):
        return _member(_walk(node.value, env), node.attr)
    if isinstance(node, ast.Subscript):
        return _member(_walk(node.value, env), _walk(node.slice, env))
    if isinstance(node, ast.List | ast.Tuple):
        return [_walk(e, env) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {
            _walk(k, env) if k is not None else None: _walk(v, env) for k, v in zip(node.keys, node.values, strict=True)
        }
    if isinstance(node, ast.BinOp) and type(node.op) in _BIN:
        left, right = _walk(node.left, env), _walk(node.right, env)
        if isinstance(node.op, ast.Mult) and _too_long(left, right):
            raise ExprError("repetition too large")
        return _BIN[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        value = _walk(node.operand, env)
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
                result = _walk(value_node, env)
                if not result:
                    return result
            return result
        result = False
        for value_node in node.values:
            result = _walk(value_node, env)
            if result:
                return result
        return result
    if isinstance(node, ast.Compare):
        left = _walk(node.left, env)
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = _walk(right_node, env)
            if not _CMP[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.IfExp):
        return _walk(node.body, env) if _walk(node.test, env) else _walk(node.orelse, env)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if node.keywords:
            raise ExprError(f"{node.func.id}(): keyword arguments are not supported")
        args = [_walk(a, env) for a in node.args]
        return FUNCTIONS[node.func.id](*args)
    raise ExprError(f"not allowed in a skill expression: {ast.unparse(node)!r}")


ENV = {
    "n": 3,
    "x": 2.5,
    "s": "Abc",
    "none": None,
    "items": [1, 2, 3],
    "row": {"amount": "10.5", "currency": "EUR", "tags": ["a", "b"]},
    "rows": [{"a": 1}, {"a": 2}],
    "t": True,
}
_ATOMS = st.sampled_from(
    [
        "1",
        "0",
        "2.5",
        "-1",
        '"a"',
        '"Abc"',
        "None",
        "True",
        "$n",
        "$x",
        "$s",
        "$none",
        "$items",
        "$row",
        "$rows",
        "$t",
        "$missing",
        "$row.amount",
        "$row.tags",
        '$row["currency"]',
        "$items[0]",
        "$items[9]",
        "[]",
        "{}",
        '{"k": 1}',
        "os",
        "__import__",
        "[1, 2]",
        "(1, 2)",
        "$rows[0].a",
    ]
)
_UNARY = st.sampled_from(["not {}", "-{}", "+{}", "~{}", "({})"])
_BINARY = st.sampled_from(
    [
        "{} + {}",
        "{} - {}",
        "{} * {}",
        "{} / {}",
        "{} // {}",
        "{} % {}",
        "{} ** {}",
        "{} and {}",
        "{} or {}",
        "{} == {}",
        "{} != {}",
        "{} < {}",
        "{} <= {} < {}",
        "{} in {}",
        "{} not in {}",
        "{} is {}",
        "{} if {} else {}",
        "[{}, {}]",
        "{{{}: {}}}",
        "{}[{}]",
        "len({})",
        "max({}, {})",
        "fmt({}, {})",
        "str({})",
        "lower({})",
        "round({}, {})",
        "sorted({})",
        "keys({})",
        "get({}, {})",
        "join({})",
        "unique({})",
        "sum({})",
        "any_of({}, {})",
        "int({})",
        "float({})",
        "money({})",
        "{}.amount",
        "{}[1:2]",
        "[*{}]",
        "{{**{}}}",
        "nosuch({})",
        "len(x={})",
        "(lambda: {})()",
        "[i for i in {}]",
    ]
)


def _fill(template: str, parts: list[str]) -> str:
    count = template.replace("{{", "").replace("}}", "").count("{}")
    return template.format(*parts[:count])


def _expr(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _ATOMS
    smaller = _expr(depth - 1)
    return st.one_of(
        _ATOMS,
        st.tuples(_UNARY, smaller).map(lambda t: t[0].format(t[1])),
        st.tuples(_BINARY, st.lists(smaller, min_size=3, max_size=3)).map(lambda t: _fill(t[0], t[1])),
    )


def _outcome(run: Any, source: str) -> tuple[str, Any]:
    try:
        return "value", run(source, ENV)
    except ExprError as exc:
        return "error", str(exc)


@settings(max_examples=1500, deadline=None)
@given(_expr(3))
def test_the_compiled_expression_computes_what_the_walk_computed(source: str) -> None:
    try:
        parse(source)
    except ExprError:
        return  # not an expression at all: both refuse it at parse
    assert _outcome(evaluate, source) == _outcome(_by_walking, source)


def test_a_tree_held_by_a_program_is_compiled_once_and_runs_like_its_text() -> None:
    node = parse('fmt("{} of {}", len($items), $row["currency"])')
    assert (
        evaluate(node, ENV) == evaluate(node, ENV) == _by_walking('fmt("{} of {}", len($items), $row["currency"])', ENV)
    )
