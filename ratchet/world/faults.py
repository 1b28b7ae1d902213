"""The per-run fault injector: which declared faults a run meets, armed on its World.

A FaultPlan is what a run draws from: the declarations (a task's, then its world's, when
recording; the golden's own, when replaying: ratchet.goldens.faults), the task id and the run.
It crosses into the MCP server process (`python -m ratchet.mcp --faults JSON`), so it is a model.
A FaultInjector is one run's use of a plan: it counts the calls that reached each tool and asks
fault_for about the next one. call_tool (ratchet.world.tools) consults the World's injector;
an unarmed World (world.injector is None) never faults, whatever its files declare.
"""

from __future__ import annotations

import fnmatch
from collections import Counter
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from ratchet.core.errors import InputError
from ratchet.goldens.faults import FaultKind, FaultSpec, fault_for

if TYPE_CHECKING:
    from ratchet.goldens.tasks import Task
    from ratchet.goldens.trace import Trace
    from ratchet.world.state import World


class FaultPlan(BaseModel):
    """The faults one run draws from, and what it draws for (task id, run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    task_id: str
    run: int = Field(default=0, ge=0)
    faults: tuple[FaultSpec, ...] = ()

    @classmethod
    def recording(cls, task: Task, world: World, *, run: int = 0) -> FaultPlan:
        """What a recording of `task` meets: its own declarations, then its world's. A declaration whose
        `tool` matches no tool the run is offered (a typo) is an InputError: it would never fire, and the
        golden would be blessed as if it had met a failure."""
        # Imported here: the tool packs import the world's state, which names this module for its types.
        from ratchet.world.tools import offered_tools

        offered = [tool.name for tool in offered_tools(world)]
        owners = (
            (f"task {task.id}: fault", "the task is offered", task.faults),
            ("world fault", "the world offers", world.faults),
        )
        for owner, offers, specs in owners:
            for spec in specs:
                if not any(fnmatch.fnmatchcase(name, spec.tool) for name in offered):
                    raise InputError(
                        f"{owner} tool {spec.tool!r} matches no tool {offers}: check its name "
                        "(a pattern such as payments_* covers a pack)"
                    )
        return cls(task_id=task.id, run=run, faults=(*task.faults, *world.faults))

    @classmethod
    def replaying(cls, golden: Trace) -> FaultPlan:
        """What a replay of `golden` meets: the golden's declarations and run, never the head's tasks.yaml
        or world (a pull request cannot drop the faults its goldens were blessed with)."""
        return cls(task_id=golden.task_id, run=golden.fault_run, faults=tuple(golden.faults))

    def stamp(self, trace: Trace) -> Trace:
        """The trace with the declarations it drew from (left out of its JSON when there are none)."""
        trace.faults = list(self.faults)
        trace.fault_run = self.run if self.faults else 0
        return trace


class FaultInjector:
    """One run's faults: counts the calls that reached each tool, and draws for the next one."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self.calls: Counter[str] = Counter()

    def next_call(self, tool: str) -> FaultKind | None:
        """Count one call of `tool` that reached it, and return the fault it meets (None: it runs)."""
        self.calls[tool] += 1
        plan = self.plan
        return fault_for(plan.faults, task_id=plan.task_id, run=plan.run, tool=tool, nth=self.calls[tool])


def arm(world: World, plan: FaultPlan | None) -> World:
    """Arm `world` for one run of `plan` (no plan, or one with no declarations: disarmed); returns it."""
    world.injector = FaultInjector(plan) if plan is not None and plan.faults else None
    return world
