"""Replay: run a golden's task again under the edited skill set, same seed, same frozen clock.

`Replayer` is where a pair's replays come from: the agent model (recording them), or replays
an earlier run stored (no agent call). It also answers for the unchanged skills on the
current world, which drift needs, and keeps every replay it handed out. It reads the world
files once (WorldFiles) and gives each replay its own copy: parsing them again per replay was
most of a repeated check.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ratchet.agent.runner import run_task
from ratchet.config.project import Project
from ratchet.core.chat import ChatModel
from ratchet.core.clock import Clock, wall_clock
from ratchet.core.errors import InputError
from ratchet.gate.models import EditReplays, Selected
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.skills.skill import Skill
from ratchet.world.faults import FaultPlan, arm
from ratchet.world.state import WorldFiles


def replay_task(
    task: Task,
    golden: Trace,
    skills: Mapping[str, Skill],
    model: ChatModel,
    *,
    project: Project,
    tree: Path,
    overlays: tuple[Path, ...] = (),
    clock: Clock = wall_clock,
) -> Trace:
    """Replay one task with the golden's seed and clock over the world found in `tree` (with `overlays`),
    through the minimal runner or the configured harness: Replayer.run, with the world read for this
    replay alone (a Replayer reads it once for all of its replays)."""
    replayer = Replayer(
        project, tree=tree, head_skills=skills, base_skills=skills, agent=model, overlays=overlays, clock=clock
    )
    return replayer.run(task, golden, skills)


class Replayer:
    """A pair's replay source: under `head_skills`, and under `base_skills` on the same world (drift)."""

    def __init__(
        self,
        project: Project,
        *,
        tree: Path,
        head_skills: Mapping[str, Skill],
        base_skills: Mapping[str, Skill],
        agent: ChatModel | None = None,
        stored: EditReplays | None = None,
        overlays: tuple[Path, ...] = (),
        clock: Clock = wall_clock,
    ) -> None:
        if agent is None and stored is None:
            raise ValueError("a Replayer needs an agent model or stored replays")
        self.project = project
        self.tree = tree
        self.head_skills = head_skills
        self.base_skills = base_skills
        self.agent = agent
        self.stored = stored
        self.overlays = overlays
        self.clock = clock
        self.recorded = EditReplays()
        # Read on the first replay (stored replays need no world), once for every replay after it.
        self.world_files = WorldFiles(tree / project.config.paths.world, overlays=overlays)

    @property
    def simulated(self) -> bool:
        """Whether the replays run on the simulator (`upstream: sim`), as a verdict and a noise record say."""
        return self.project.config.upstream == "sim"

    @property
    def model(self) -> ChatModel:
        """The agent model; a Replayer of stored replays has none, and never runs one (_fetch)."""
        assert self.agent is not None
        return self.agent

    def run(self, task: Task, golden: Trace, skills: Mapping[str, Skill], *, purpose: str = "replay") -> Trace:
        """Replay `task` under `skills` with the golden's seed and clock over this Replayer's world, through the
        minimal runner or the configured harness; `purpose` names its model calls (`bless` for noise). The replay
        meets the golden's seeded faults (its declarations and run, docs/faults.md), never the head's. The replay
        keeps the agent tier's tool protocol and this Ratchet's version, which check compares with its golden's
        (ratchet.gate.provenance)."""
        return self._run(task, golden, skills, purpose=purpose).stamped(tool_protocol=self.project.agent_tool_protocol)

    def _run(self, task: Task, golden: Trace, skills: Mapping[str, Skill], *, purpose: str) -> Trace:
        paths, harness = self.project.config.paths, self.project.config.harness
        if not harness.is_minimal:
            # Imported here: the harness runner brings the loopback endpoint (FastAPI, uvicorn), a third of
            # what importing ratchet.gate.check cost, and no minimal replay uses it.
            from ratchet.harness.driver import WorldSource, run_through_harness

            source = WorldSource(
                world_dir=self.tree / paths.world,
                workspaces_dir=self.tree / paths.workspaces,
                workspace=task.workspace,
                frozen_time=golden.frozen_time,
                overlays=self.overlays,
                faults=FaultPlan.replaying(golden),
            )
            return run_through_harness(
                task,
                skills,
                source,
                self.model,
                settings=harness,
                home=self.project.home,
                seed=golden.seed,
                models={"agent": self.model.model_id},
                upstream=self.project.config.upstream,
                purpose=purpose,
                world_files=self.world_files,
            )
        world = self.world_files.world(
            workspaces_dir=self.tree / paths.workspaces, workspace=task.workspace, frozen_time=golden.frozen_time
        )
        arm(world, FaultPlan.replaying(golden))
        return run_task(
            task,
            skills,
            world,
            self.model,
            seed=golden.seed,
            frozen_time=golden.frozen_time,
            models={"agent": self.model.model_id},
            upstream=self.project.config.upstream,
            routing=self.project.config.routing,
            max_turns=self.project.config.max_agent_turns,
            max_tokens=self.project.agent_max_tokens(),
            purpose=purpose,
            clock=self.clock,
        )

    def replay(self, item: Selected) -> Trace:
        """The task under the edited skills (a repeat, `item.run` > 0, is kept under `<task>#<run>`)."""
        stored = self.stored.replays if self.stored is not None else None
        return self._fetch(
            item,
            self.head_skills,
            stored,
            self.recorded.replays,
            key=item.replay_key,
            missing="re-run the configuration that recorded them",
        )

    def replay_base(self, item: Selected) -> Trace:
        """The task under the unchanged skills on the current world, replayed at most once."""
        known = self.recorded.base_replays.get(item.task.id)
        if known is not None:
            return known
        stored = self.stored.base_replays if self.stored is not None else None
        # A missing stored base replay: the drift stage says "could not replay the base skill", never a silent pass.
        return self._fetch(
            item, self.base_skills, stored, self.recorded.base_replays, key=item.task.id, missing="base replay"
        )

    def _fetch(
        self,
        item: Selected,
        skills: Mapping[str, Skill],
        stored: Mapping[str, Trace] | None,
        recorded: dict[str, Trace],
        *,
        key: str,
        missing: str,
    ) -> Trace:
        if stored is None:
            trace = self.run(item.task, item.golden, skills)
        elif key in stored:
            trace = stored[key]
        else:
            raise InputError(f"no stored replay for task {key!r} ({missing})")
        recorded[key] = trace
        return trace
