"""The import contracts in pyproject.toml hold, and they are not a test that cannot fail: a
package importing one above it, a package nobody placed in the order, a bench layer importing a
higher one and a gate stage importing a later one each break them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")


def lint(tree: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT), "--config", str(tree / "pyproject.toml"), "--no-cache"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_tree_keeps_every_contract() -> None:
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout[-2000:]
    assert "6 kept, 0 broken" in result.stdout
    assert "packages import only the packages below them KEPT" in result.stdout


def copy_tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "ratchet", tree / "ratchet", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")
    return tree


def append(module: Path, line: str) -> None:
    module.write_text(module.read_text(encoding="utf-8") + f"\n{line}  # noqa\n", encoding="utf-8")


def test_a_package_importing_one_above_it_or_left_unplaced_breaks_the_order(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path)
    append(tree / "ratchet" / "core" / "jsonio.py", "import ratchet.gate.decide")  # the kernel reaching up
    append(tree / "ratchet" / "world" / "state.py", "import ratchet.llm.pricing")  # siblings on one line
    append(tree / "ratchet" / "bench" / "data" / "models.py", "import ratchet.bench.report.metrics")
    result = lint(tree)
    assert result.returncode == 1
    assert "packages import only the packages below them BROKEN" in result.stdout
    assert "ratchet.core.jsonio -> ratchet.gate.decide" in result.stdout
    assert "ratchet.world.state -> ratchet.llm.pricing" in result.stdout
    assert "the benchmark's layers: run, report, build, data BROKEN" in result.stdout
    assert "ratchet.bench.data.models -> ratchet.bench.report.metrics" in result.stdout


def test_a_new_package_must_be_placed_in_the_order(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path)
    (tree / "ratchet" / "helpers").mkdir()
    (tree / "ratchet" / "helpers" / "__init__.py").write_text('"""Unplaced."""\n', encoding="utf-8")
    result = lint(tree)
    assert result.returncode == 1
    assert "packages import only the packages below them BROKEN" in result.stdout
    assert "ratchet.helpers" in result.stdout


def test_a_stage_importing_a_later_stage_breaks_the_order(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path)
    level0 = tree / "ratchet" / "gate" / "level0.py"
    level0.write_text(level0.read_text(encoding="utf-8") + "\nimport ratchet.gate.cascade  # noqa\n", encoding="utf-8")
    models = tree / "ratchet" / "gate" / "models.py"
    models.write_text(models.read_text(encoding="utf-8") + "\nimport ratchet.gate.drift  # noqa\n", encoding="utf-8")
    result = lint(tree)
    assert result.returncode == 1
    assert "gate stages import only earlier stages BROKEN" in result.stdout
    assert "models import no stage BROKEN" in result.stdout
    assert "ratchet.gate.level0 -> ratchet.gate.cascade" in result.stdout
