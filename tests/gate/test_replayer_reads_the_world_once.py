"""A Replayer reads the world once for all its replays, and each replay is the one replay_task gives alone.

The demo repository's goldens are replayed on the simulator twice: by replay_task on its own
(which reads the world files for the replay) and by one Replayer. The traces must be equal,
and once the Replayer has read the world, breaking every world file on disk changes nothing.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.config.project import load_project
from ratchet.core.clock import frozen_clock
from ratchet.gate.models import Selected
from ratchet.gate.replay import Replayer, replay_task
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import Trace, load_goldens
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills


def _items(repo: Path) -> list[Selected]:
    project = load_project(repo)
    goldens = load_goldens(project.path("goldens"))
    tasks = [task for task in load_tasks(project.path("tasks")) if task.id in goldens]
    return [Selected(task=task, golden=goldens[task.id], because="routed") for task in tasks]


def _alone(repo: Path, item: Selected) -> Trace:
    project = load_project(repo)
    return replay_task(
        item.task,
        item.golden,
        load_skills(project.path("skills")),
        sim_model_for("agent"),
        project=project,
        tree=repo,
        clock=frozen_clock,
    )


def test_a_replayer_s_replays_are_replay_task_s(demo_repo: Path) -> None:
    items = _items(demo_repo)
    assert any(item.task.workspace for item in items) and any(not item.task.workspace for item in items)
    project = load_project(demo_repo)
    skills = load_skills(project.path("skills"))
    replayer = Replayer(
        project,
        tree=demo_repo,
        head_skills=skills,
        base_skills=skills,
        agent=sim_model_for("agent"),
        clock=frozen_clock,
    )
    for item in items:
        assert replayer.replay(item) == _alone(demo_repo, item)
        assert replayer.replay_base(item) == _alone(demo_repo, item)


def test_a_replayer_reads_the_world_files_once(demo_repo: Path) -> None:
    items = _items(demo_repo)
    expected = [_alone(demo_repo, item) for item in items]
    project = load_project(demo_repo)
    skills = load_skills(project.path("skills"))
    replayer = Replayer(
        project,
        tree=demo_repo,
        head_skills=skills,
        base_skills=skills,
        agent=sim_model_for("agent"),
        clock=frozen_clock,
    )
    first = next(i for i, item in enumerate(items) if item.task.workspace)
    assert replayer.replay(items[first]) == expected[first]
    for path in (demo_repo / project.config.paths.world).glob("*.yaml"):
        path.write_text("people: [unclosed\n", encoding="utf-8")  # read again, any replay would be an InputError
    assert [replayer.replay(item) for item in items] == expected
