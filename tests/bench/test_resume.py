"""kill -9 at seeded random moments of `bench run`, then resume: results.json is byte-identical.

Every run does 4 kills on the mini dataset; the 20-kill form is `thorough` (CI runs it, or
RATCHET_THOROUGH=1); `python tests/bench/test_resume.py --kills 100` is the heavier version still
(it builds its own mini dataset in a temp dir).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.bench.fixtures_mini import build_mini_dataset
from tests.helpers.modes import thorough

REPO = Path(__file__).resolve().parents[2]


def _command(config: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "ratchet.cli.bench_run",
        "run",
        "--config",
        config,
        "--out",
        "o",
        "--concurrency",
        "2",
    ]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("RATCHET_HOME", "CI")}
    env.update(RATCHET_UPSTREAM="sim", PYTHONPATH=str(REPO))
    return env


def _edits_done(root: Path) -> int:
    """Edits finished so far: in results.json (written at a run's end) or journaled (as each finishes)."""
    done = {
        (config.name, path.stem)
        for config in (root / "o" / ".journal").glob("*")
        for path in config.glob("*.json")
        if not path.name.startswith(".")
    }
    try:
        raw = json.loads((root / "o" / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return len(done)
    return len(done | {(name, edit) for name, run in raw["runs"].items() for edit in run["edits"]})


def kill_and_resume(
    template: Path, workdir: Path, *, kills: int, seed: int = 0, config: str = "cascade"
) -> dict[str, int]:
    """Run `config` uninterrupted in one copy and with `kills` SIGKILLs + resume in another; compare bytes."""
    reference, killed = workdir / "reference", workdir / "killed"
    shutil.copytree(template, reference)
    shutil.copytree(template, killed)
    started = time.perf_counter()
    subprocess.run(_command(config), cwd=reference, env=_env(), check=True, capture_output=True)
    duration = time.perf_counter() - started
    rng = random.Random(f"kill-resume:{seed}")
    stats = {"kills": 0, "mid_run": 0, "finished_before_kill": 0}
    attempts = 0
    while stats["kills"] < kills and attempts < 3 * kills:
        attempts += 1
        before = _edits_done(killed)
        process = subprocess.Popen(
            _command(config), cwd=killed, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.05, duration))
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
            stats["kills"] += 1
            if _edits_done(killed) > before:
                stats["mid_run"] += 1
        else:
            # It finished: start the next round from nothing, so every kill lands on work to do.
            stats["finished_before_kill"] += 1
            shutil.rmtree(killed / "o")
        process.wait()
    final = subprocess.run(_command(config), cwd=killed, env=_env(), capture_output=True, text=True)
    assert final.returncode == 0, final.stderr
    assert (killed / "o" / "results.json").read_bytes() == (reference / "o" / "results.json").read_bytes()
    return stats


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_dataset(tmp_path_factory.mktemp("tiny") / "root")


@pytest.mark.skipif(thorough(), reason="the thorough run does the twenty-kill form")
def test_kill_9_four_times_then_resume_is_byte_identical(tiny: Path, tmp_path: Path) -> None:
    stats = kill_and_resume(tiny, tmp_path, kills=4, seed=0)
    assert stats["kills"] == 4, stats


@pytest.mark.thorough
def test_kill_9_twenty_times_then_resume_is_byte_identical(tiny: Path, tmp_path: Path) -> None:
    stats = kill_and_resume(tiny, tmp_path, kills=20, seed=0)
    assert stats["kills"] == 20, stats
    assert stats["mid_run"] >= 1, stats


if __name__ == "__main__":
    count = int(sys.argv[sys.argv.index("--kills") + 1]) if "--kills" in sys.argv else 100
    with tempfile.TemporaryDirectory() as tmp:
        root = build_mini_dataset(Path(tmp) / "root")
        t0 = time.perf_counter()
        print(kill_and_resume(root, Path(tmp) / "work", kills=count, seed=1), f"{time.perf_counter() - t0:.1f}s")
