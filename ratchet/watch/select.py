"""Which goldens `ratchet watch` replays: per skill, up to K goldens with a fresh noise record, seeded by id.

A golden is watched only when its noise record is fresh (pinned to this golden: ratchet.goldens.noise) and
its fired skill is unchanged since it was recorded (ratchet.gate.noise.stale_skill): then a replay that
differs more often than the record did is the model's doing, not the skill's. Every golden of a watched
skill left out for another reason is named. Within a skill the order is derived_seed("watch", task id):
the same goldens on every run, no clock, and no bias towards the first task ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import InputError
from ratchet.core.ids import derived_seed
from ratchet.gate.noise import stale_skill
from ratchet.goldens.noise import NoiseRecord, noise_path
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import NO_SKILL_DIR, Trace
from ratchet.skills.names import skill_key
from ratchet.skills.skill import Skill
from ratchet.watch.models import NotWatched, NotWatchedWhy


class Watched(BaseModel):
    """One golden chosen for watching, with its task and its fresh noise record."""

    model_config = ConfigDict(frozen=True)

    skill: str
    task: Task
    golden: Trace
    record: NoiseRecord


class Selection(BaseModel):
    """The goldens to replay, grouped by skill (in skill order), and every golden left out."""

    by_skill: dict[str, list[Watched]] = Field(default_factory=dict)
    available: dict[str, int] = Field(default_factory=dict, description="Watchable goldens per skill, before K.")
    not_watched: list[NotWatched] = Field(default_factory=list)

    @property
    def goldens(self) -> list[Watched]:
        return [item for items in self.by_skill.values() for item in items]


def skill_of(golden: Trace) -> str:
    """The skill a golden is watched under: the one it fired, or `_none` for a canary (as its folder is named)."""
    return golden.fired_skill or NO_SKILL_DIR


def watch_order(task_id: str) -> tuple[int, str]:
    return derived_seed("watch", task_id), task_id


def select_goldens(
    files: Mapping[Path, Trace],
    records: Mapping[str, NoiseRecord],
    tasks: Sequence[Task],
    skills: Mapping[str, Skill],
    *,
    only: Sequence[str] = (),
    per_skill: int,
    agent: str,
    simulated: bool,
) -> Selection:
    """Up to `per_skill` goldens per skill (of the skills in `only`, default all) that can be watched.

    `records` holds the fresh records by task id (ratchet.goldens.noise.load_noise_records); a golden
    whose record file exists but is not among them has a stale one. A record measured with another agent model
    than this run's (`agent`, `simulated`: a live run against records the simulator measured) is no baseline for
    it: that golden is left out, named."""
    wanted = {skill_key(name) for name in only}
    known = {skill_key(skill_of(golden)) for golden in files.values()}
    unknown = sorted(name for name in only if skill_key(name) not in known)
    if unknown:
        raise InputError(
            f"no golden of skill {', '.join(map(repr, unknown))} to watch (skills with goldens: "
            f"{', '.join(sorted(known)) or 'none'})"
        )
    by_id = {task.id: task for task in tasks}
    selection = Selection()
    candidates: dict[str, list[Watched]] = {}
    for path, golden in sorted(files.items(), key=lambda item: item[1].task_id):
        skill = skill_of(golden)
        if wanted and skill_key(skill) not in wanted:
            continue
        why = _left_out(path, golden, records, by_id, skills) or _other_model(records[golden.task_id], agent, simulated)
        if why is not None:
            selection.not_watched.append(NotWatched(task_id=golden.task_id, skill=skill, why=why[0], detail=why[1]))
            continue
        item = Watched(skill=skill, task=by_id[golden.task_id], golden=golden, record=records[golden.task_id])
        candidates.setdefault(skill, []).append(item)
    for skill in sorted(candidates):
        ordered = sorted(candidates[skill], key=lambda item: watch_order(item.task.id))
        selection.by_skill[skill] = ordered[:per_skill]
        selection.available[skill] = len(ordered)
    return selection


def _upstream(simulated: bool) -> str:
    return "simulated" if simulated else "live"


def _other_model(record: NoiseRecord, agent: str, simulated: bool) -> tuple[NotWatchedWhy, str] | None:
    if record.agent == agent and record.simulated == simulated:
        return None
    return (
        "noise record of another model",
        f"measured with {record.agent} ({_upstream(record.simulated)}), this run's agent is {agent} "
        f"({_upstream(simulated)}): ratchet noise",
    )


def _left_out(
    path: Path,
    golden: Trace,
    records: Mapping[str, NoiseRecord],
    tasks: Mapping[str, Task],
    skills: Mapping[str, Skill],
) -> tuple[NotWatchedWhy, str] | None:
    """Why `golden` cannot be watched (and what to do), or None."""
    if golden.task_id not in records:
        if noise_path(path).is_file():
            return "stale noise record", "the golden changed since its record was measured: ratchet noise"
        return "no noise record", "measure one: ratchet noise"
    if golden.task_id not in tasks:
        return "task gone", "its task is not in the tasks file"
    why = stale_skill(golden, skills)
    if why is not None:
        return "skill changed", why
    return None
