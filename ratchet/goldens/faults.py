"""Seeded tool faults: what a task (or a whole world) declares can go wrong with a tool call.

A fault is declared in tasks.yaml (`faults:` on a task) or in a world file (a top-level `faults:`
list, for whole packs), and it is recorded on the golden with the run it was drawn for, so a replay
meets the very same faults (docs/faults.md). Whether a fault fires on the n-th call of a tool is a
draw seeded by (task, run, tool, n, which declaration): never the clock, never `random`'s state.

Kinds, as a real API shows them to the agent:
- `transient`: the call is refused before anything happens (a 503); the world is unchanged.
- `timeout_before_commit`: no reply in time, and nothing happened.
- `timeout_after_commit`: no reply in time, but the effect happened (the reply was lost). The agent
  sees exactly what it sees for timeout_before_commit: it cannot tell them apart without checking.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FaultKind = Literal["transient", "timeout_before_commit", "timeout_after_commit"]
FAULT_KINDS: tuple[FaultKind, ...] = ("transient", "timeout_before_commit", "timeout_after_commit")

TRANSIENT_ERROR = "503 Service Unavailable: the service is briefly unavailable; the request was not processed"
TIMEOUT_ERROR = "timed out waiting for a reply: the request may or may not have been processed"
FAULT_ERRORS: dict[FaultKind, str] = {
    "transient": TRANSIENT_ERROR,
    "timeout_before_commit": TIMEOUT_ERROR,
    "timeout_after_commit": TIMEOUT_ERROR,
}
"""The error the agent sees for each kind (the two timeouts read the same on purpose)."""


class FaultSpec(BaseModel):
    """One declared fault: which calls of which tool fail, how, and how often."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(min_length=1, description="A tool name, or an fnmatch pattern for a pack (billing_*).")
    kind: FaultKind
    # strict: YAML's `call: true` or `call: 1.0` is a mistake, not the first call (nor `probability: true` a 1)
    call: int | None = Field(
        default=None,
        ge=1,
        strict=True,
        description="The n-th call (1-based) of a matching tool in the run; absent: every call.",
    )
    probability: float = Field(default=1.0, gt=0.0, le=1.0, allow_inf_nan=False, strict=True)


def fault_draw(task_id: str, run: int, tool: str, nth: int, declaration: int) -> float:
    """A number in [0, 1) seeded by the call it is for: the same call of the same run always draws the same."""
    text = "\0".join(("fault", task_id, str(run), tool, str(nth), str(declaration)))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") / 2**64


def fault_for(specs: Sequence[FaultSpec], *, task_id: str, run: int, tool: str, nth: int) -> FaultKind | None:
    """The fault that fires on the nth call (1-based) of `tool`, or None: the first declaration that
    matches the tool and the call and whose draw falls under its probability."""
    for declaration, spec in enumerate(specs):
        if not fnmatch.fnmatchcase(tool, spec.tool):
            continue
        if spec.call is not None and spec.call != nth:
            continue
        if spec.probability >= 1.0 or fault_draw(task_id, run, tool, nth, declaration) < spec.probability:
            return spec.kind
    return None
