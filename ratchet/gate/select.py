"""Select: which blessed goldens can an edit affect?

Two reasons: the golden's task was routed to an edited skill, or the task's routing changes
under the edited skill set (the trigger neighbourhood: a broadened description stealing a task
or a canary, a narrowed one dropping its own tasks).

Skills are compared by identity (ratchet.names.skill_key, NFKC), not spelling: a changed folder
spelled with a fullwidth f (U+FF46) is the skill the goldens recorded as `fx-expense-converter`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ratchet.agent.trigger import match_skill
from ratchet.gate.models import Selected
from ratchet.names import optional_skill_key, skill_key
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
    changed = {skill_key(name) for name in changed_skills}
    selected: list[Selected] = []
    for task in tasks:
        golden = goldens.get(task.id)
        if golden is None:
            continue
        fired = optional_skill_key(golden.fired_skill)
        if fired is not None and fired in changed:
            selected.append(Selected(task=task, golden=golden, because="routed"))
        elif optional_skill_key(match_skill(task.prompt, head_skills)) != fired:
            selected.append(Selected(task=task, golden=golden, because="trigger-neighbourhood"))
    return selected
