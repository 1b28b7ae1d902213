"""The house rules that keep ratchet/ readable, checked so they stay true: no module over 400 lines,
and no function of the gate over 80 lines or 8 parameters (self and cls not counted). A failure
lists every offender, so the fix is a split, not a hunt."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "ratchet"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
MAX_PARAMETERS = 8


def long_modules(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{path.relative_to(ROOT if root.is_relative_to(ROOT) else root.parent)}: {lines} lines")
    return found


def parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    args = function.args
    names = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    count = len(names) + (args.vararg is not None) + (args.kwarg is not None)
    return count - (bool(names) and names[0].arg in ("self", "cls"))


def big_functions(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            lines = (node.end_lineno or node.lineno) - node.lineno + 1
            if lines > MAX_FUNCTION_LINES or parameters(node) > MAX_PARAMETERS:
                where = (
                    f"{path.relative_to(ROOT if root.is_relative_to(ROOT) else root.parent)}:{node.lineno} {node.name}"
                )
                found.append(f"{where}: {lines} lines, {parameters(node)} parameters")
    return found


def test_no_module_in_ratchet_is_over_400_lines() -> None:
    assert long_modules(PACKAGE) == []


def test_no_gate_function_is_over_80_lines_or_8_parameters() -> None:
    assert big_functions(PACKAGE / "gate") == []


def test_the_rules_name_their_offenders(tmp_path: Path) -> None:
    package = tmp_path / "ratchet"
    package.mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(85))
    (package / "big.py").write_text(
        f"def long(a, b):\n{body}\n\n\ndef wide(self, a, b, c, d, e, f, g, h, *rest):\n    pass\n\n\n"
        "class C:\n    def fine(self, a, b, c, d, e, f, g, h):\n        pass\n" + "# padding\n" * 310,
        encoding="utf-8",
    )
    lines = len((package / "big.py").read_text(encoding="utf-8").splitlines())
    assert lines > MAX_MODULE_LINES
    assert long_modules(package) == [f"ratchet/big.py: {lines} lines"]
    assert big_functions(package) == [
        "ratchet/big.py:1 long: 86 lines, 2 parameters",
        "ratchet/big.py:89 wide: 2 lines, 9 parameters",
    ]
