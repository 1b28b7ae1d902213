"""Running shipped tasks on the simulator, for the agent and sim tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ratchet.agent.runner import run_task
from ratchet.core.chat import ChatModel
from ratchet.core.clock import Clock, wall_clock
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import Trace
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.world import load_world

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"
SKILLS = load_skills(REPO / "skills")
TASKS = {t.id: t for t in load_tasks(REPO / "bench/tasks.yaml")}
OWN_SKILLS = {"github-triage", "fx-expense-converter"}
OWN_TASKS = [t for t in TASKS.values() if t.skill in OWN_SKILLS or t.is_canary]


def run(
    task: Task,
    skills: dict[str, Skill] | None = None,
    *,
    model: ChatModel | None = None,
    overlays: Sequence[Path] = (),
    seed: int | None = None,
    max_turns: int = 16,
    clock: Clock = wall_clock,
) -> Trace:
    world = load_world(
        REPO / "bench/world",
        workspaces_dir=REPO / "bench/workspaces",
        workspace=task.workspace,
        frozen_time=CLOCK,
        overlays=overlays,
    )
    return run_task(
        task,
        SKILLS if skills is None else skills,
        world,
        model or sim_model_for("agent"),
        seed=task_seed(task.id) if seed is None else seed,
        frozen_time=CLOCK,
        models={"agent": "sim/agent-1"},
        max_turns=max_turns,
        clock=clock,
    )
