"""The replay hot path before and after, in one run: `ratchet bench smoke` CPU seconds, and a noise run's profile.

Both sides run in fresh processes on trees exported to a temp folder, never in this checkout:
  before  `git archive REV` (default d4f1540, the commit before the hot-path work)
  after   `git archive HEAD` with this checkout's changed files copied over it (--overlay: only those files)
Each side gets its own bench work area whose response cache is a hard-linked copy of a warm one
(--cache, default var/bench/cache: entries are replaced by rename, never changed in place, so the links
are safe), so the runs are the all-hits runs the issue measured. Smoke: `python -m ratchet bench smoke
--work W` in the exported tree, its CPU (user + system, children included). Noise: the `noise`
configuration in-process at concurrency 1 under cProfile (it profiles one thread), top-10 by own time.

    .venv/bin/python benchmarks/hot_path.py [--before d4f1540] [--overlay FILE ...]

SIMULATED MODELS: the figures are CPU time of Ratchet's own code on the simulator, not model results.
The machine is shared: quote the ratios, not the seconds.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def export(rev: str, dest: Path, overlay: list[str]) -> None:
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    for name in overlay:
        source = REPO / name
        if source.exists():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
        else:
            (dest / name).unlink(missing_ok=True)


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_side(tree: Path, work: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    before = children_cpu()
    started = time.perf_counter()
    smoke = subprocess.run(
        [sys.executable, "-m", "ratchet", "bench", "smoke", "--work", str(work)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if smoke.returncode != 0:
        raise SystemExit(f"smoke failed in {tree}:\n{smoke.stdout[-2000:]}\n{smoke.stderr[-2000:]}")
    smoke_cpu, smoke_wall = children_cpu() - before, time.perf_counter() - started
    noise = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--worker", str(tree), str(work)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if noise.returncode != 0:
        raise SystemExit(f"noise run failed in {tree}:\n{noise.stderr[-3000:]}")
    return {"smoke_cpu": smoke_cpu, "smoke_wall": smoke_wall, **json.loads(noise.stdout.splitlines()[-1])}


def worker(tree: Path, work: Path) -> None:
    """In the exported tree's own code: the noise configuration, one thread, profiled."""
    from ratchet.bench.run.run import RunOptions, run_config
    from ratchet.config.env import on_the_simulator
    from ratchet.config.gate import gate_config_path

    out = Path(tempfile.mkdtemp(prefix="hot-path-noise-"))
    opts = RunOptions(
        config_path=gate_config_path("noise", project_root=tree), out=out, root=tree, home=work, concurrency=1
    )
    profile = cProfile.Profile()
    with on_the_simulator():
        started = time.process_time()
        profile.enable()
        run_config(opts)
        profile.disable()
        cpu = time.process_time() - started
    text = io.StringIO()
    stats = pstats.Stats(profile, stream=text)
    total = sum(row[2] for row in stats.stats.values())  # type: ignore[attr-defined]
    top = sorted(stats.stats.items(), key=lambda item: item[1][2], reverse=True)[:10]  # type: ignore[attr-defined]
    rows = [f"{100 * t[2] / total:5.1f}%  {Path(func[0]).name}:{func[1]}({func[2]})" for func, t in top]
    shutil.rmtree(out, ignore_errors=True)
    print(json.dumps({"noise_cpu": cpu, "noise_top": rows}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="d4f1540")
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "bench" / "cache")
    parser.add_argument("--overlay", nargs="*", default=None, help="changed files to copy over HEAD (default: git's)")
    parser.add_argument("--worker", nargs=2, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    overlay = args.overlay
    if overlay is None:
        changed = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=all", "--", "ratchet"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        overlay = [line[3:] for line in changed.splitlines()]
    with tempfile.TemporaryDirectory(prefix="hot-path-") as tmp:
        results = {}
        for side, rev in (("before", args.before), ("after", "HEAD")):
            tree, work = Path(tmp) / side, Path(tmp) / f"{side}-work"
            export(rev, tree, overlay if side == "after" else [])
            work.mkdir()
            if args.cache.is_dir():
                subprocess.run(["cp", "-al", str(args.cache), str(work / "cache")], check=True)
            results[side] = run_side(tree, work)
            print(
                f"{side}: smoke {results[side]['smoke_cpu']:.1f} CPU s, noise {results[side]['noise_cpu']:.1f} CPU s",
                flush=True,
            )
    before, after = results["before"], results["after"]
    print("\nSIMULATED MODELS: CPU time of Ratchet's own code, not model results")
    print(f"{'':24}{'before':>10}{'after':>10}{'after/before':>14}")
    for label, name in (
        ("bench smoke CPU s", "smoke_cpu"),
        ("bench smoke wall s", "smoke_wall"),
        ("noise run CPU s (1 thr)", "noise_cpu"),
    ):
        b, a = float(before[name]), float(after[name])  # type: ignore[arg-type]
        print(f"{label:24}{b:10.1f}{a:10.1f}{a / b:14.2f}")
    for side in ("before", "after"):
        print(f"\nnoise run, top 10 by own time ({side}):")
        for row in results[side]["noise_top"]:  # type: ignore[union-attr]
            print("  " + row)


if __name__ == "__main__":
    main()
