"""Replay: run a golden's task again under the edited skill set, same seed, same frozen clock."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ratchet.agent.runner import run_task
from ratchet.config import Project
from ratchet.llm.types import ChatModel
from ratchet.skills import Skill
from ratchet.tasks import Task
from ratchet.trace import Trace
from ratchet.world.state import load_world


def replay_task(
    task: Task,
    golden: Trace,
    skills: Mapping[str, Skill],
    model: ChatModel,
    *,
    project: Project,
    tree: Path,
    overlays: tuple[Path, ...] = (),
    purpose: str = "replay",
) -> Trace:
    """Replay one task with the golden's seed and clock over the world found in `tree`."""
    paths = project.config.paths
    world = load_world(
        tree / paths.world,
        workspaces_dir=tree / paths.workspaces,
        workspace=task.workspace,
        frozen_time=golden.frozen_time,
        overlays=overlays,
    )
    return run_task(
        task,
        skills,
        world,
        model,
        seed=golden.seed,
        frozen_time=golden.frozen_time,
        models={"agent": model.model_id},
        upstream=project.config.upstream,
        max_turns=project.config.max_agent_turns,
        max_tokens=project.agent_max_tokens(),
        purpose=purpose,
    )
