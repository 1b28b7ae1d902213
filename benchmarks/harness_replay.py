"""Wall time and CPU of one replay through each harness, and what a cached re-check costs.

Part 1 replays the same demo tasks, round after round, through the minimal runner, the real
Claude Code and the real Codex (the simulator answers every model call itself: no cache),
interleaved so machine load falls on all three alike, and prints the median per replay, wall and
CPU, and their ratios to the minimal runner. CPU is everything the replay cost the machine: this
process (the endpoint, the simulator), its children (the harness, the pump or a per-replay MCP
server: RUSAGE_CHILDREN deltas, with this process a child subreaper so a server the harness left
behind is counted when it is reaped) and the run's warm MCP server (its /proc CPU, reaped forks
included), whose one start is printed apart. Part 2 records a small demo project through each
binary, checks the cosmetic edit, checks it again, and prints what the second check cost and how
many of its model calls reached the upstream (the target: $0 and none).
Run: .venv/bin/python benchmarks/harness_replay.py [ROUNDS] [--replays-only]   (needs RATCHET_CLAUDE_BIN /
RATCHET_CODEX_BIN, which scripts/check exports after scripts/install_harnesses.sh). Before/after a change:
copy this script into a `git archive` of the old revision and run it there too (it imports the
`ratchet` beside it; a tree without ratchet/harness/warm_mcp.py has no warm server to count).
"""

from __future__ import annotations

import ctypes
import importlib
import os
import resource
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing, suppress
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import git
import yaml

from ratchet.agent.runner import run_task
from ratchet.bless.record import bless, record_tasks
from ratchet.config.gate import resolve_gate_config
from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.config.project import load_project
from ratchet.data import demo_files
from ratchet.gate.check import check_edit
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.setup.demo import EDITS, apply_edit
from ratchet.sim.agent import SimAgentModel
from ratchet.skills.sets import load_skills
from ratchet.store.db import STORE_FILE
from ratchet.world.state import load_world

TASKS = ("github-triage-01", "github-triage-04", "fx-expense-converter-01", "canary-01")
HARNESSES: tuple[HarnessName, ...] = ("claude-code", "codex")


_TICK = os.sysconf("SC_CLK_TCK")
_PR_SET_CHILD_SUBREAPER = 36


def _warm_module() -> ModuleType | None:
    """ratchet/harness/warm_mcp.py when this tree has it (an older revision does not)."""
    try:
        return importlib.import_module("ratchet.harness.warm_mcp")
    except ModuleNotFoundError:
        return None


class _Cpu:
    """CPU seconds spent so far by this process, its reaped descendants and the warm server (with its reaped forks)."""

    def __init__(self, warm_pid: int | None) -> None:
        self.warm_pid = warm_pid

    def warm_s(self) -> float:
        if self.warm_pid is None:
            return 0.0
        fields = Path(f"/proc/{self.warm_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(fields[i]) for i in (11, 12, 13, 14)) / _TICK  # utime stime cutime cstime

    def settle(self) -> None:
        """Reap what the replay left to us, and wait until the warm server has reaped its forks."""
        with suppress(ChildProcessError):
            while True:
                pid, _ = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
        if self.warm_pid is None:
            return
        children = Path(f"/proc/{self.warm_pid}/task/{self.warm_pid}/children")
        deadline = time.monotonic() + 5
        while children.read_text().strip() and time.monotonic() < deadline:
            time.sleep(0.02)

    def now(self) -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime + self.warm_s()


def _start_warm() -> tuple[int | None, float, float]:
    """(warm server pid or None, its start's wall s, its start's CPU s): once per run, before the first replay."""
    warm = _warm_module()
    if warm is None or not warm.available():
        return None, 0.0, 0.0
    start = time.perf_counter()
    server = warm.warm_server()
    took = time.perf_counter() - start
    cpu = _Cpu(server.proc.pid)
    own = cpu.warm_s()
    return server.proc.pid, took, own


Sample = tuple[float, float]
"""(wall s, CPU s) of one replay."""


def _replays(rounds: int, cpu: _Cpu) -> dict[str, list[Sample]]:
    samples: dict[str, list[Sample]] = {"minimal": [], **{h: [] for h in HARNESSES}}
    with demo_files() as source, tempfile.TemporaryDirectory() as home:
        project = load_project(Path(source), home=Path(home))
        skills = load_skills(project.path("skills"))
        tasks = [t for t in load_tasks(project.path("tasks")) if t.id in TASKS]
        model = SimAgentModel()
        for _ in range(rounds):
            for task in tasks:
                src = WorldSource(
                    world_dir=project.path("world"),
                    workspaces_dir=project.path("workspaces"),
                    workspace=task.workspace,
                    frozen_time=project.config.clock,
                )
                cpu.settle()
                used, start = cpu.now(), time.perf_counter()
                world = load_world(
                    src.world_dir,
                    workspaces_dir=src.workspaces_dir,
                    workspace=src.workspace,
                    frozen_time=src.frozen_time,
                )
                run_task(
                    task,
                    skills,
                    world,
                    model,
                    seed=task_seed(task.id),
                    frozen_time=src.frozen_time,
                    models={"agent": model.model_id},
                    routing="model",
                )
                samples["minimal"].append((time.perf_counter() - start, cpu.now() - used))
                for harness in HARNESSES:
                    used, start = cpu.now(), time.perf_counter()
                    trace = run_through_harness(
                        task,
                        skills,
                        src,
                        model,
                        settings=HarnessSettings(name=harness),
                        home=Path(home),
                        seed=task_seed(task.id),
                        models={"agent": model.model_id},
                    )
                    took = time.perf_counter() - start
                    cpu.settle()  # the harness's leftovers reaped, the warm server's fork too: then count
                    samples[harness].append((took, cpu.now() - used))
                    if trace.status != "ok":
                        raise SystemExit(f"{harness} {task.id}: {trace.error}")
    return samples


def _cached_recheck(harness: HarnessName) -> tuple[float, float, int, int, float]:
    """(first check USD, second check USD, model calls of the second, of those from the upstream, second s)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        with demo_files() as source:
            shutil.copytree(source, root, copy_function=shutil.copyfile)
        tasks_file = root / "tasks.yaml"
        data = yaml.safe_load(tasks_file.read_text(encoding="utf-8"))
        data["tasks"] = [t for t in data["tasks"] if t["id"] in TASKS]
        tasks_file.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        (root / ".gitignore").write_text(".ratchet/\n", encoding="utf-8")
        repo = git.Repo.init(root, initial_branch="main")
        actor = git.Actor("bench", "bench@example.com")
        repo.git.add("-A")
        repo.index.commit("skills", author=actor, committer=actor)
        home = root / ".ratchet"
        project = load_project(root, home=home).with_harness(harness)
        record_tasks(project, strict=True)
        bless(project)
        repo.git.add("-A")
        base = repo.index.commit("bless", author=actor, committer=actor).hexsha
        cosmetic = next(edit for edit in EDITS if edit.branch == "edit/cosmetic")
        apply_edit(root, cosmetic)
        config = resolve_gate_config("cascade")
        first = check_edit(root, base=base, head=cosmetic.branch, home=home, config=config, harness=harness)
        before = _ledger(home)
        start = time.perf_counter()
        second = check_edit(root, base=base, head=cosmetic.branch, home=home, config=config, harness=harness)
        took = time.perf_counter() - start
        after = _ledger(home)
        return first.cost_usd, second.cost_usd, after[0] - before[0], after[1] - before[1], took


def _ledger(home: Path) -> tuple[int, int]:
    """(model calls, of those not answered from the cache) over the whole store: rows and rollups."""
    with closing(sqlite3.connect(home / STORE_FILE)) as db:
        counts = [
            db.execute(
                f"SELECT COALESCE({total}, 0), COALESCE(SUM(CASE WHEN cache_hit = 0 THEN {one} END), 0) FROM {table}"
            ).fetchone()
            for table, total, one in (("model_calls", "COUNT(*)", "1"), ("call_rollups", "SUM(calls)", "calls"))
        ]
    return sum(int(c[0]) for c in counts), sum(int(c[1]) for c in counts)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 3
    for name in ("RATCHET_CLAUDE_BIN", "RATCHET_CODEX_BIN"):
        if not os.environ.get(name):
            raise SystemExit(f"{name} is not set: run scripts/install_harnesses.sh and point it at var/harness")
    # Orphans (a per-replay MCP server the harness did not wait for) come to us, so their CPU is counted.
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    warm_pid, warm_wall, warm_cpu = _start_warm()
    samples = _replays(rounds, _Cpu(warm_pid))
    tree = Path(__file__).resolve().parents[1]
    print(f"tree {tree}; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    if warm_pid is None:
        print("no warm MCP server in this tree: each harness replay starts its own `python -m ratchet.mcp`")
    else:
        print(f"warm MCP server: started once in {warm_wall:.2f} s wall, {warm_cpu:.2f} s CPU (its imports)")
    count = len(samples["minimal"])
    wall0 = statistics.median(w for w, _ in samples["minimal"])
    cpu0 = statistics.median(c for _, c in samples["minimal"])
    print(f"one replay, median of {count} ({len(TASKS)} demo tasks x {rounds} rounds, simulator):")
    for name, values in samples.items():
        wall = statistics.median(w for w, _ in values)
        cpu = statistics.median(c for _, c in values)
        print(
            f"  {name:<12} wall {wall * 1000:8.1f} ms {wall / wall0:7.1f}x minimal"
            f"   CPU {cpu * 1000:8.1f} ms {cpu / cpu0:7.1f}x minimal"
        )
    if "--replays-only" in sys.argv:
        return
    for harness in HARNESSES:
        first, second, calls, upstream, took = _cached_recheck(harness)
        print(
            f"cached re-check of the cosmetic edit through {harness}: first ${first:.6f} (simulated), "
            f"again ${second:.6f} in {took:.1f} s, {upstream} of {calls} model calls reached the upstream"
        )


if __name__ == "__main__":
    main()
