"""A repeated `ratchet check` answered from its stored verdict against `ratchet --version`, measured in one run.

Builds the demo repository in a temp dir (recorded and blessed on the simulator), commits the changed
tool argument edit on its branch (replayed, judged by the cascade, BLOCK) and checks it once, which
stores its verdict (ratchet.gate.verdict_store). Then, round after round, each a fresh process
(interpreter start and imports included): `python -m ratchet --version`, the repeat (answered from the
stored verdict), and the same repeat with --no-verdict-cache (the whole check, every model call a
response-cache hit: what a repeat cost before). Ratios are taken round by round against that round's
`--version`, so a machine that drifts mid-run cancels out, and medians are printed. A repeat that did
not name a stored verdict is counted as a miss (another process editing the checkout changes the
installed-files stamp, so a miss is possible on a shared tree). Issue 29's must-show: <= 1.2x; exit 1 when over.
Run: .venv/bin/python benchmarks/verdict_cache.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.setup.demo import EDITS, apply_edit, build_demo_repo

DECIDED = "edit/changed-argument"
LIMIT = 1.2
STORED = "answered from a stored verdict"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of one fresh process, its exit code and its stderr."""
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    return time.perf_counter() - started, _children_cpu() - cpu, done.returncode, done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        repo.mkdir()
        env = {
            k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONDONTWRITEBYTECODE", "RATCHET_VERDICT_CACHE")
        }
        env.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
        os.environ.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home))
        build_demo_repo(repo, home)
        apply_edit(repo, next(edit for edit in EDITS if edit.branch == DECIDED))
        check = [sys.executable, "-m", "ratchet", "check", "--repo", str(repo), "--base", "main", "--head", DECIDED]
        commands = {
            "version": [sys.executable, "-m", "ratchet", "--version"],
            "stored": [*check, "--json"],
            "fresh": [*check, "--json", "--no-verdict-cache"],
        }
        first = _timed(commands["stored"], env)  # decides and stores; warms the OS caches and the .pyc files
        print(f"first check: exit {first[2]} (1 is BLOCK)")
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        misses = 0
        for _ in range(args.rounds):
            for name, argv in commands.items():
                wall, cpu, _code, err = _timed(argv, env)
                runs[name].append((wall, cpu))
                misses += name == "stored" and STORED not in err
        version = runs["version"]
        print(f"{args.rounds} rounds; median of each, then its ratio to that round's --version")
        print(f"{'':<40} {'wall s':>8} {'cpu s':>8} {'wall x':>8} {'cpu x':>8}")
        for name, label in (
            ("version", "ratchet --version"),
            ("stored", "repeat, from the stored verdict"),
            ("fresh", "repeat, --no-verdict-cache"),
        ):
            wall_x = statistics.median(w / v for (w, _), (v, _) in zip(runs[name], version, strict=True))
            cpu_x = statistics.median(c / v for (_, c), (_, v) in zip(runs[name], version, strict=True))
            print(
                f"{label:<40} {statistics.median(w for w, _ in runs[name]):8.3f} "
                f"{statistics.median(c for _, c in runs[name]):8.3f} {wall_x:8.2f} {cpu_x:8.2f}"
            )
        stored_x = statistics.median(w / v for (w, _), (v, _) in zip(runs["stored"], version, strict=True))
        print(f"repeats that missed the store: {misses} of {args.rounds}")
        print(f"stored repeat / --version (wall): {stored_x:.2f}x (must be <= {LIMIT:g}x)")
        if stored_x > LIMIT:
            sys.exit(1)


if __name__ == "__main__":
    main()
