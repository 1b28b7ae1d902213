"""Select: which blessed goldens can an edit affect?

Two reasons: the golden's task was routed to an edited skill, or the task's routing changes
under the edited skill set (the trigger neighbourhood: a broadened description stealing a task
or a canary, a narrowed one dropping its own tasks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.agent.trigger import match_skill
from ratchet.gate.models import Selected
from ratchet.skills import Skill
from ratchet.tasks import Task
from ratchet.trace import Trace


def affected_goldens(
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    changed_skills: Sequence[str],
    head_skills: Mapping[str, Skill],
) -> list[Selected]:
    """Goldens to replay, in task order. Tasks without a golden are not checked."""
    changed = set(changed_skills)
    selected: list[Selected] = []
    for task in tasks:
        golden = goldens.get(task.id)
        if golden is None:
            continue
        if golden.fired_skill is not None and golden.fired_skill in changed:
            selected.append(Selected(task=task, golden=golden, because="routed"))
        elif match_skill(task.prompt, head_skills) != golden.fired_skill:
            selected.append(Selected(task=task, golden=golden, because="trigger-neighbourhood"))
    return selected
