"""What the behavioural diff adds to a check, measured in one run: `ratchet diff` against `ratchet check`.

Builds the demo repository in a temp dir (recorded and blessed on the simulator, its cache warm) and
commits each of the demo's five edits on its own branch. Then, round after round, for every edit:
`python -m ratchet --version`, `python -m ratchet diff` and `python -m ratchet check` over the same
base and head, each a whole process (interpreter start and imports included, as a user pays them).
A check computes the same diff before it replays (ratchet.gate.static), so `diff` less `--version` is
the diff's share of the check, printed as a ratio of the check's own work (check less `--version`)
round by round, so a machine that drifts mid-run cancels out; the medians are printed. The cosmetic
edit is where the diff decides alone: its check replays nothing.
Run: .venv/bin/python benchmarks/diff_in_check.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ratchet.setup.demo import EDITS, apply_edit, build_demo_repo


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)
    return time.perf_counter() - started, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        repo.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONDONTWRITEBYTECODE")}
        env.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
        os.environ.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home))
        build_demo_repo(repo, home)
        for edit in EDITS:
            apply_edit(repo, edit)
        version = [sys.executable, "-m", "ratchet", "--version"]
        commands = {
            edit.branch: {
                "diff": [
                    sys.executable,
                    "-m",
                    "ratchet",
                    "diff",
                    "--repo",
                    str(repo),
                    "--base",
                    "main",
                    "--head",
                    edit.branch,
                ],
                "check": [
                    sys.executable,
                    "-m",
                    "ratchet",
                    "check",
                    "--repo",
                    str(repo),
                    "--base",
                    "main",
                    "--head",
                    edit.branch,
                    "--on-error",
                    "warn",
                ],
            }
            for edit in EDITS
        }
        for pair in commands.values():  # first runs: warm the OS caches and the response cache
            for argv in pair.values():
                _timed(argv, env)
        runs: dict[str, dict[str, list[float]]] = {b: {"version": [], "diff": [], "check": []} for b in commands}
        for _ in range(args.rounds):
            for branch, pair in commands.items():
                runs[branch]["version"].append(_timed(version, env)[0])
                for name, argv in pair.items():
                    runs[branch][name].append(_timed(argv, env)[0])
        print(
            f"{args.rounds} rounds, whole processes; medians in seconds, and the diff's share of the check's own work"
        )
        print(f"{'edit':<28} {'--version':>9} {'diff':>7} {'check':>7} {'diff/check':>10} {'share':>7}")
        for branch, times in runs.items():
            shares = [
                (d - v) / max(c - v, 1e-9)
                for v, d, c in zip(times["version"], times["diff"], times["check"], strict=True)
            ]
            ratios = [d / c for d, c in zip(times["diff"], times["check"], strict=True)]
            print(
                f"{branch:<28} {statistics.median(times['version']):9.3f} {statistics.median(times['diff']):7.3f} "
                f"{statistics.median(times['check']):7.3f} {statistics.median(ratios):10.2f} "
                f"{statistics.median(shares):7.2f}"
            )


if __name__ == "__main__":
    main()
