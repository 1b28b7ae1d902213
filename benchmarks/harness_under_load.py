"""`ratchet demo --harness claude-code` (and codex), N times each, under a synthetic CPU load of 2x the cores.

Issue 27: on a loaded machine (load average 15-25, as a shared CI runner is) a demo through Claude
Code failed "claude-code asked the model before Ratchet's MCP server was connected (2 starts);
nothing was checked". This starts 2 x cores busy-loop processes (pure CPU: no network, no disk,
each ending by itself after --load-max-s, and all killed when the script ends, however it ends),
runs the demo N times per harness, one run after another, harnesses interleaved (with --parallel,
one stream of runs per harness at the same time: the demos load each other on top of the busy
loops), and prints per harness: runs, runs that exited 0, runs that met "asked the model before ...", wrong decisions
(the demo's `!! ` lines) and the median wall time of a run. The demo is offline (the simulator
plays the model behind the real binary; loopback only) and builds a fresh repository per run.
Run: .venv/bin/python benchmarks/harness_under_load.py [N] [--harness NAME] [--parallel] [--load-max-s S]
(N defaults to 10; needs RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN, as benchmarks/harness_replay.py).
It runs the `ratchet` beside it; copy it into a `git archive` of another revision to measure that.
"""

from __future__ import annotations

import argparse
import atexit
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

TREE = Path(__file__).resolve().parents[1]
HARNESSES = ("claude-code", "codex")
NOT_READY = "asked the model before Ratchet's MCP server was connected"
BUSY = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    pass\n"


def start_load(count: int, limit_s: float) -> list[subprocess.Popen[bytes]]:
    """`count` busy loops, each in its own session, each ending by itself after limit_s at the latest."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", BUSY.format(limit=limit_s)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        for _ in range(count)
    ]
    atexit.register(stop_load, procs)
    return procs


def stop_load(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def run_demo(harness: str, timeout_s: float) -> tuple[int | None, str, float]:
    """(exit code or None at the timeout, stdout+stderr, wall s) of one `ratchet demo --harness harness`."""
    env = {**os.environ, "PYTHONPATH": str(TREE)}
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ratchet", "demo", "--harness", harness],
            cwd=TREE,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b"").decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out, time.perf_counter() - start
    return done.returncode, done.stdout + done.stderr, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=10, help="Demo runs per harness (default 10).")
    parser.add_argument("--harness", choices=HARNESSES, action="append", help="Only this harness; repeatable.")
    parser.add_argument("--load-max-s", type=float, default=4 * 3600, help="Each busy loop ends by itself after this.")
    parser.add_argument("--parallel", action="store_true", help="One stream of runs per harness, at the same time.")
    parser.add_argument("--timeout-s", type=float, default=3600, help="One demo run past this counts as failed.")
    args = parser.parse_args()
    harnesses = tuple(args.harness or HARNESSES)
    for name in ("RATCHET_CLAUDE_BIN", "RATCHET_CODEX_BIN"):
        if not os.environ.get(name):
            raise SystemExit(f"{name} is not set: run scripts/install_harnesses.sh and point it at var/harness")
    cores = os.cpu_count() or 1
    load = start_load(2 * cores, args.load_max_s)
    rows: dict[str, list[tuple[int | None, str, float]]] = {h: [] for h in harnesses}
    loads: list[float] = []
    started = time.perf_counter()
    printing = threading.Lock()

    def stream(names: tuple[str, ...]) -> None:
        for i in range(args.n):
            for harness in names:
                code, out, wall = run_demo(harness, args.timeout_s)
                wrong = sum(line.startswith("!! ") for line in out.splitlines())
                with printing:
                    rows[harness].append((code, out, wall))
                    loads.append(os.getloadavg()[0])
                    print(
                        f"run {i + 1}/{args.n} {harness}: exit {code}, {wall:.0f} s, {wrong} wrong, "
                        f"not-ready {'yes' if NOT_READY in out else 'no'}, load {loads[-1]:.1f}",
                        flush=True,
                    )

    try:
        if args.parallel:
            threads = [threading.Thread(target=stream, args=((harness,),)) for harness in harnesses]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        else:
            stream(harnesses)
    finally:
        stop_load(load)
    print(
        f"tree {TREE}; {cores} cores + {2 * cores} busy loops{', harnesses in parallel' if args.parallel else ''}; load average {min(loads):.1f}-{max(loads):.1f} "
        f"(median {statistics.median(loads):.1f}); {time.perf_counter() - started:.0f} s in all"
    )
    for harness, runs in rows.items():
        ok = sum(code == 0 for code, _, _ in runs)
        not_ready = sum(NOT_READY in out for _, out, _ in runs)
        wrong = sum(line.startswith("!! ") for _, out, _ in runs for line in out.splitlines())
        median = statistics.median(wall for _, _, wall in runs)
        print(
            f"  {harness:<12} {len(runs)} runs: {ok} exit 0, {not_ready} 'asked the model before' failures, "
            f"{wrong} wrong decisions (of {5 * len(runs)}), median {median:.0f} s a run"
        )


if __name__ == "__main__":
    main()
