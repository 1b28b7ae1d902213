"""The benchmark's dependencies are the `bench` extra: the gate runs without them, `ratchet bench` asks for them.

numpy, scipy, scikit-learn and matplotlib are absent from a plain `pip install ratchet`. A module set
to None in sys.modules imports as missing (ModuleNotFoundError), exactly as when it is not installed;
scripts/wheel_check.sh proves the same with a real install.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.agent.catalog import nearest_skills
from ratchet.cli import app
from ratchet.skills.skill import Skill, parse_skill_text

BENCH_ONLY = ("matplotlib", "numpy", "scipy", "sklearn")
runner = CliRunner()


def _without_bench_extra(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def test_a_bench_command_without_the_extra_is_one_line_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without_bench_extra(monkeypatch, "sklearn")
    result = runner.invoke(app, ["bench", "selftest", "--root", str(tmp_path)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "error: ratchet bench needs the benchmark's dependencies, and scikit-learn is not installed: install "
        "ratchet[bench] (pip install 'ratchet[bench]'; in a clone, pip install -e '.[bench]')\n"
    )


def test_every_missing_bench_dependency_is_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _without_bench_extra(monkeypatch, *BENCH_ONLY)
    result = runner.invoke(app, ["bench", "report", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "error: ratchet bench needs the benchmark's dependencies, and matplotlib, numpy, scikit-learn, scipy are "
        "not installed: install ratchet[bench]"
    )


def test_bench_help_needs_no_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_bench_extra(monkeypatch, *BENCH_ONLY)
    result = runner.invoke(app, ["bench", "selftest", "--help"])
    assert result.exit_code == 0
    assert "Usage: ratchet bench selftest" in result.stdout


def test_model_routing_neighbours_need_no_scikit_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    def skill(name: str, description: str) -> Skill:
        return parse_skill_text(
            f"---\nname: {name}\ndescription: {description}\n---\nBody\n", folder=Path(name), source=name
        )

    edited = skill("fx", "Convert expense amounts to US dollars at the daily exchange rate.")
    candidates = {
        "calendar": skill("calendar", "Book a meeting room in the team calendar."),
        "invoices": skill("invoices", "Total the invoice amounts of a customer in dollars."),
        "rates": skill("rates", "Look up the exchange rate of a currency on a date."),
    }
    _without_bench_extra(monkeypatch, *BENCH_ONLY)
    assert nearest_skills([edited], candidates, 2) == ["rates", "invoices"]


def test_the_demo_and_noise_run_without_the_bench_extra(tmp_path: Path) -> None:
    """record, bless, check (the demo runs all three) and noise, in a process where the extra is missing."""
    blocked = ", ".join(repr(m) for m in BENCH_ONLY)
    program = (
        f"import sys; sys.modules.update(dict.fromkeys([{blocked}])); "
        "from ratchet.cli import main; sys.argv = ['ratchet', *sys.argv[1:]]; main()"
    )
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "RATCHET_HOME": str(tmp_path / "home"),
        "RATCHET_UPSTREAM": "sim",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    }
    demo = subprocess.run(
        [sys.executable, "-c", program, "demo", "--dir", str(tmp_path / "demo")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "ok edit/new-side-effect     BLOCK (expected BLOCK)" in demo.stdout
    noise = subprocess.run(
        [sys.executable, "-c", program, "noise", "--repeats", "2", "github-triage-01"],
        cwd=tmp_path / "demo",
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert noise.returncode == 0, noise.stdout + noise.stderr
    assert "wrote 1 noise record(s)" in noise.stdout
