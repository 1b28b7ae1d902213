"""`ratchet bench smoke` CPU seconds per stage, HEAD against the working tree, in one run.

Both sides run in fresh processes on copies in a temp folder, never in this checkout:
  before  `git archive REV` (default HEAD)
  after   this checkout's working tree (tracked and untracked files, without .git, .venv and var/)
Each side starts with an empty work area (the default var/bench, so a cold response cache: the smoke a fresh
clone runs) and runs `run_smoke` in its own code through a driver that reads the process's CPU (user +
system, every thread) at each stage line the smoke prints. The sides run one after the other (--order
picks which first), so they do not compete for the two cores; `--rounds N` alternates them N times.

    .venv/bin/python benchmarks/smoke_cpu.py [--before REV] [--rounds 1] [--keep DIR]

SIMULATED MODELS: the figures are CPU time of Ratchet's own code on the simulator, not model results. The
two sides may hold different datasets (the working tree's edits); the item counts per stage are printed.
The machine is shared: quote the ratios and CPU seconds, not the wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_EXCLUDE = (".git", ".venv", "var", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", ".grimp_cache")

DRIVER = """
import json, resource, sys, time
from pathlib import Path
from ratchet.bench.run.smoke import run_smoke

def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime

marks = [("start", cpu(), time.perf_counter())]
run_smoke(Path("."), echo=lambda line: marks.append((line, cpu(), time.perf_counter())))
marks.append(("end", cpu(), time.perf_counter()))
print("SMOKE-CPU " + json.dumps(marks))
"""

_STAGE = re.compile(r"^(build|mutation|[\w-]+)(?:: | \()")
"""A stage line of run_smoke: `build: ...`, `mutation (12 per skill): ...`, `<config> (<mode>): ...`."""


def export_head(rev: str, dest: Path) -> None:
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def export_tree(dest: Path) -> None:
    excludes = [f"--exclude=./{name}" for name in _EXCLUDE]
    tar = subprocess.run(["tar", "-c", *excludes, "-f", "-", "."], cwd=REPO, check=True, capture_output=True).stdout
    dest.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=tar, check=True)


def run_side(tree: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    env.pop("RATCHET_UPSTREAM", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-c", DRIVER], cwd=tree, env=env, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"smoke failed in {tree}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    marks = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("SMOKE-CPU "))[10:])
    stages: dict[str, float] = {}
    items: dict[str, str] = {}
    previous = marks[0][1]
    for line, cpu, _wall in marks[1:-1]:
        match = _STAGE.match(line)
        if match is None:  # the build's progress lines: its CPU counts at its "build:" line
            continue
        name = match.group(1)
        stages[name] = stages.get(name, 0.0) + cpu - previous
        items[name] = line.split(": ", 1)[1].split(" in ")[0] if ": " in line else ""
        previous = cpu
    stages["report + calibration"] = marks[-1][1] - previous
    process = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {
        "stages": stages,
        "items": items,
        "user": after.ru_utime - before.ru_utime,
        "system": after.ru_stime - before.ru_stime,
        "process": process,
        "wall": marks[-1][2] - marks[0][2],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="HEAD", help="the revision the working tree is compared with")
    parser.add_argument("--rounds", type=int, default=1, help="run each side this many times, alternating")
    parser.add_argument("--order", choices=("before-first", "after-first"), default="before-first")
    parser.add_argument("--keep", type=Path, help="keep the copies (and their smoke outputs) here")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="smoke-cpu-")) if args.keep is None else args.keep
    sides = ("before", "after") if args.order == "before-first" else ("after", "before")
    runs: dict[str, list[dict[str, object]]] = {"before": [], "after": []}
    try:
        for round_ in range(args.rounds):
            for side in sides:
                tree = tmp / f"{side}-{round_}"
                shutil.rmtree(tree, ignore_errors=True)
                export_head(args.before, tree) if side == "before" else export_tree(tree)
                result = run_side(tree)
                runs[side].append(result)
                print(
                    f"{side} round {round_ + 1}: {result['process']:.1f} CPU s "
                    f"(user {result['user']:.1f}, system {result['system']:.1f}), wall {result['wall']:.1f} s",
                    flush=True,
                )
    finally:
        if args.keep is None:
            shutil.rmtree(tmp, ignore_errors=True)
    print("\nSIMULATED MODELS: CPU time of Ratchet's own code on the simulator, not model results")
    print(
        f"before = {args.before}, after = the working tree; CPU s (user + system, all threads), best of {args.rounds}"
    )
    best = {side: min(runs[side], key=lambda r: float(str(r["process"]))) for side in runs}
    b_stages, a_stages = best["before"]["stages"], best["after"]["stages"]
    assert isinstance(b_stages, dict) and isinstance(a_stages, dict)
    b_items, a_items = best["before"]["items"], best["after"]["items"]
    assert isinstance(b_items, dict) and isinstance(a_items, dict)
    print(f"{'stage':28} {'before':>8} {'after':>8} {'ratio':>6}   items before / after")
    for name in list(dict.fromkeys([*b_stages, *a_stages])):
        b, a = b_stages.get(name, 0.0), a_stages.get(name, 0.0)
        ratio = f"{a / b:6.2f}" if b else "     -"
        print(f"{name:28} {b:8.1f} {a:8.1f} {ratio}   {b_items.get(name, '')} / {a_items.get(name, '')}")
    for key in ("user", "system", "process", "wall"):
        b, a = float(str(best["before"][key])), float(str(best["after"][key]))
        label = {"process": "whole process (CPU s)", "wall": "wall s (loaded machine)"}.get(key, f"{key} CPU s")
        print(f"{label:28} {b:8.1f} {a:8.1f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
