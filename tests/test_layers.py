"""The import contracts in pyproject.toml hold, and they are not a test that cannot fail:
a gate stage importing a later one breaks them."""

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
    assert "4 kept, 0 broken" in result.stdout


def test_a_stage_importing_a_later_stage_breaks_the_order(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(ROOT / "ratchet", tree / "ratchet", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "pyproject.toml", tree / "pyproject.toml")
    level0 = tree / "ratchet" / "gate" / "level0.py"
    level0.write_text(level0.read_text(encoding="utf-8") + "\nimport ratchet.gate.cascade  # noqa\n", encoding="utf-8")
    models = tree / "ratchet" / "gate" / "models.py"
    models.write_text(models.read_text(encoding="utf-8") + "\nimport ratchet.gate.drift  # noqa\n", encoding="utf-8")
    result = lint(tree)
    assert result.returncode == 1
    assert "gate stages import only earlier stages BROKEN" in result.stdout
    assert "models import no stage BROKEN" in result.stdout
    assert "ratchet.gate.level0 -> ratchet.gate.cascade" in result.stdout
