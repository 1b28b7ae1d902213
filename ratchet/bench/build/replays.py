"""Replaying a candidate edit against the blessed goldens: does it manifest, which pairs moved?

Every check runs in process over the bench's scratch repository (read only): the edited
SKILL.md is parsed from text and swapped into the skill set, a D1 overlay is a YAML file in the
work area, and the repository's main never moves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ratchet.agent.runner import run_task
from ratchet.config.project import Project
from ratchet.core.chat import ChatModel
from ratchet.core.errors import SkillError
from ratchet.gate.level0 import level0_findings
from ratchet.gate.select import affected_goldens
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.sim.injector import InjectContext, ToolInfo
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world.faults import FaultPlan, arm
from ratchet.world.state import World, WorldFiles, load_world
from ratchet.world.tools import offered_tools


@dataclass(frozen=True)
class PairCheck:
    """One affected golden replayed under an edit."""

    task_id: str
    because: str
    diverged: bool  # a Level 0 difference (hard or diff): routing, calls, arguments, output
    moved: bool  # diverged, or a volatile fact read with a new value
    error: str | None
    detail: str


class ReplayEnv:
    """The scratch repository's tasks, goldens and skills, and the agent model to replay with."""

    def __init__(
        self,
        project: Project,
        tasks: Sequence[Task],
        goldens: dict[str, Trace],
        skills: dict[str, Skill],
        model: ChatModel,
    ) -> None:
        self.project = project
        self.tree = project.root
        self.tasks = list(tasks)
        self.goldens = goldens
        self.skills = skills
        self.model = model
        self._worlds: dict[tuple[Path, ...], WorldFiles] = {}

    def world(self, workspace: str | None, overlays: tuple[Path, ...], frozen_time: str) -> World:
        """A fresh copy of the world for one replay (its files read once per overlays: WorldFiles)."""
        paths = self.project.config.paths
        if overlays not in self._worlds:
            self._worlds[overlays] = WorldFiles(self.tree / paths.world, overlays=overlays)
        return self._worlds[overlays].world(
            workspaces_dir=self.tree / paths.workspaces, workspace=workspace, frozen_time=frozen_time
        )

    def replay(self, task: Task, golden: Trace, skills: dict[str, Skill], overlays: tuple[Path, ...] = ()) -> Trace:
        """What ratchet.gate.replay.replay_task does, with the parsed world reused across replays (and the
        golden's seeded faults armed, as every replay meets them)."""
        world = arm(self.world(task.workspace, overlays, golden.frozen_time), FaultPlan.replaying(golden))
        return run_task(
            task,
            skills,
            world,
            self.model,
            seed=golden.seed,
            frozen_time=golden.frozen_time,
            models={"agent": self.model.model_id},
            upstream=self.project.config.upstream,
            max_turns=self.project.config.max_agent_turns,
            max_tokens=self.project.agent_max_tokens(),
            purpose="replay",
        )

    def parse_edited(self, skill: str, text: str) -> Skill:
        """The edited skill; SkillError when it is not a valid skill with the same name."""
        folder = self.project.path("skills") / skill
        edited = parse_skill_text(text, folder=folder, source=f"{skill}/SKILL.md (edited)")
        if edited.name != skill:
            raise SkillError(f"the edit renamed the skill to {edited.name!r}")
        return edited

    def check(
        self, skill: str, text: str, *, overlays: tuple[Path, ...] = (), only: Sequence[str] | None = None
    ) -> list[PairCheck]:
        """Replay every golden the edit can affect (routed + trigger neighbourhood), in task order.

        `only` limits the replays to those task ids (an audit re-checking known pairs).
        """
        head = dict(self.skills)
        head[skill] = self.parse_edited(skill, text)
        checks: list[PairCheck] = []
        for item in affected_goldens(self.tasks, self.goldens, [skill], head):
            if only is not None and item.task.id not in only:
                continue
            replay = self.replay(item.task, item.golden, head, overlays)
            findings = level0_findings(item.golden, replay)
            diverged = any(f.severity in ("hard", "diff") for f in findings)
            moved = diverged or any(f.kind == "volatile_changed" for f in findings)
            detail = "; ".join(f.detail for f in findings[:3])
            checks.append(
                PairCheck(item.task.id, item.because, diverged and replay.status == "ok", moved, replay.error, detail)
            )
        return checks

    def inject_context(self, skill: str) -> InjectContext:
        """What the injector may see: offered tools and the other skills' descriptions."""
        paths = self.project.config.paths
        world = load_world(
            self.tree / paths.world, workspaces_dir=None, workspace=None, frozen_time=self.project.config.clock
        )
        tools = tuple(
            ToolInfo(t.name, t.effect, tuple((n, p.type, p.required, p.enum) for n, p in t.params.items()))
            for t in offered_tools(world)
        )
        others = {name: s.description for name, s in sorted(self.skills.items()) if name != skill}
        return InjectContext(tools=tools, other_descriptions=others)
