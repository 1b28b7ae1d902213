"""A repeated `ratchet check` against `ratchet --version`, each a fresh process, measured in one run.

Builds the demo repository in a temp dir (recorded and blessed on the simulator, its cache warm),
commits two of its edits on their own branches and checks each once, so that: (a) the changed
tool argument is a decided edit (replayed, judged by the cascade, BLOCK), every call of a repeat
a cache hit; (b) the cosmetic edit replays identically, every agent call served from the cache
the recording filled. Then, in turn, round after round: `python -m ratchet --version`, the repeat
of (a), the check of (b); each a whole process (interpreter start and imports included), with
wall and CPU seconds (user + sys, this process's children) per run. Ratios are taken round by
round against that round's `--version`, so a machine that drifts mid-run cancels out, and the
medians are printed. Issue 16's must-show: (a) <= 1.5x `--version`, (b) <= 2x; exit 1 when over.
The processes may write bytecode (PYTHONDONTWRITEBYTECODE is dropped for them): the first run of
each compiles what was edited since its .pyc, and the measured runs, like an installed Ratchet, do not.
Run: .venv/bin/python benchmarks/repeated_check.py [--rounds N] [--profile FILE]
(FILE: a cProfile of one more repeat of (a), in this process, for where its time goes)
"""

from __future__ import annotations

import argparse
import cProfile
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
COSMETIC = "edit/cosmetic"
LIMITS = {"decided": 1.5, "cosmetic": 2.0}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall and CPU seconds of one fresh process, and its exit code."""
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300, check=False)
    return time.perf_counter() - started, _children_cpu() - cpu, done.returncode


def _check(repo: Path, head: str) -> list[str]:
    return [sys.executable, "-m", "ratchet", "check", "--repo", str(repo), "--base", "main", "--head", head]


def _profile(repo: Path, out: Path) -> None:
    from ratchet.config.gate import resolve_gate_config
    from ratchet.gate.check import check_edit

    profiler = cProfile.Profile()
    profiler.runcall(check_edit, repo, base="main", head=DECIDED, config=resolve_gate_config("cascade"))
    profiler.dump_stats(str(out))
    print(f"profile of one more repeat of {DECIDED} (in process, imports not counted): {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--profile", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        repo.mkdir()
        # PYTHONDONTWRITEBYTECODE would have every process compile, from source, each module edited since
        # its .pyc was written: a cost of the checkout's edit history that no installed Ratchet pays.
        env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTHONDONTWRITEBYTECODE")}
        env.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home), LITELLM_LOCAL_MODEL_COST_MAP="True")
        os.environ.update(RATCHET_UPSTREAM="sim", RATCHET_HOME=str(home))
        build_demo_repo(repo, home)
        for edit in EDITS:
            if edit.branch in (DECIDED, COSMETIC):
                apply_edit(repo, edit)
        commands = {
            "version": [sys.executable, "-m", "ratchet", "--version"],
            "decided": _check(repo, DECIDED),
            "cosmetic": _check(repo, COSMETIC),
        }
        first = {name: _timed(argv, env) for name, argv in commands.items()}  # decides (a); warms the OS caches
        codes = {name: code for name, (_, _, code) in first.items()}
        print(f"exit codes: {codes} (check: 1 is BLOCK, 0 PASS/WARN)")
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.rounds):
            for name, argv in commands.items():
                wall, cpu, _code = _timed(argv, env)
                runs[name].append((wall, cpu))
        version = runs["version"]
        print(f"{args.rounds} rounds; median of each, then its ratio to that round's --version")
        print(f"{'':<30} {'wall s':>8} {'cpu s':>8} {'wall x':>8} {'cpu x':>8}")
        over = []
        for name, label in (
            ("version", "ratchet --version"),
            ("decided", f"repeat of {DECIDED}"),
            ("cosmetic", f"{COSMETIC} (from cache)"),
        ):
            walls = [w for w, _ in runs[name]]
            cpus = [c for _, c in runs[name]]
            wall_x = statistics.median(w / v for (w, _), (v, _) in zip(runs[name], version, strict=True))
            cpu_x = statistics.median(c / v for (_, c), (_, v) in zip(runs[name], version, strict=True))
            limit = LIMITS.get(name)
            note = "" if limit is None else f"  (must be <= {limit:g}x)"
            print(
                f"{label:<30} {statistics.median(walls):8.3f} {statistics.median(cpus):8.3f} "
                f"{wall_x:8.2f} {cpu_x:8.2f}{note}"
            )
            if limit is not None and wall_x > limit:
                over.append(f"{label} {wall_x:.2f}x > {limit:g}x")
        if args.profile is not None:
            _profile(repo, args.profile)
        if over:
            print("over the limit: " + "; ".join(over))
            sys.exit(1)


if __name__ == "__main__":
    main()
