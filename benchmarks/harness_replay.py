"""Wall time of one replay through each harness, and what a cached re-check costs.

Part 1 replays the same demo tasks, round after round, through the minimal runner, the real
Claude Code and the real Codex (the simulator answers every model call itself: no cache),
interleaved so machine load falls on all three alike, and prints the median per replay and the
ratio to the minimal runner. Part 2 records a small demo project
through each binary, checks the cosmetic edit, checks it again, and prints what the second check
cost and how many of its model calls reached the upstream (the target: $0 and none).
Run: .venv/bin/python benchmarks/harness_replay.py [ROUNDS]   (needs RATCHET_CLAUDE_BIN / RATCHET_CODEX_BIN,
which scripts/check exports after scripts/install_harnesses.sh)
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from contextlib import closing
from pathlib import Path

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


def _replay_times(rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"minimal": [], **{h: [] for h in HARNESSES}}
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
                start = time.perf_counter()
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
                times["minimal"].append(time.perf_counter() - start)
                for harness in HARNESSES:
                    start = time.perf_counter()
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
                    times[harness].append(time.perf_counter() - start)
                    if trace.status != "ok":
                        raise SystemExit(f"{harness} {task.id}: {trace.error}")
    return times


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
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for name in ("RATCHET_CLAUDE_BIN", "RATCHET_CODEX_BIN"):
        if not os.environ.get(name):
            raise SystemExit(f"{name} is not set: run scripts/install_harnesses.sh and point it at var/harness")
    times = _replay_times(rounds)
    base = statistics.median(times["minimal"])
    print(f"one replay, median of {len(times['minimal'])} ({len(TASKS)} demo tasks x {rounds} rounds, simulator):")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<12} {median * 1000:9.1f} ms   {median / base:7.1f}x minimal")
    for harness in HARNESSES:
        first, second, calls, upstream, took = _cached_recheck(harness)
        print(
            f"cached re-check of the cosmetic edit through {harness}: first ${first:.6f} (simulated), "
            f"again ${second:.6f} in {took:.1f} s, {upstream} of {calls} model calls reached the upstream"
        )


if __name__ == "__main__":
    main()
