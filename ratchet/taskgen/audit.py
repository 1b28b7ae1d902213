"""The audit of generated tasks: record each on the configured upstream, keep only those that prove something.

A generated task survives when its recording (the golden it would get) ran, loaded the skill the template
names, shows that skill at work (ratchet.bless.evidence: the check `ratchet bless` makes), and differs at
Level 0 from what a do-nothing agent leaves (the skill loaded, no tool call, a fixed answer): a task whose
golden a do-nothing agent matches catches no regression. Recording happens in a scratch copy of the
project under the work area, so the user's tasks.yaml and pending/ are never touched.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ratchet.bless.evidence import project_evidence
from ratchet.bless.record import plan_record, record_tasks
from ratchet.config.project import Project
from ratchet.core.errors import SkillError
from ratchet.core.jsonio import atomic_write_text
from ratchet.gate.level0 import level0_findings
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import SIDE_EFFECTS, ToolCall, Trace, read_trace
from ratchet.skills.names import optional_skill_key
from ratchet.taskgen.expand import Generated
from ratchet.taskgen.render import tasks_yaml
from ratchet.taskgen.templates import Item

DO_NOTHING_ANSWER = "Done."
"""What the do-nothing agent replies, whatever it was asked."""

WORDING_ONLY = frozenset({"output_changed"})
"""Level 0 kinds that say only that the answer reads differently: a golden that differs from doing nothing
in these alone pins wording, not anything the skill does."""


class TaskAudit(BaseModel):
    """What the audit found for one generated task."""

    id: str
    template: str
    horizon: int
    distractors: int
    edge_case: bool
    variant: int
    prompt: str
    accepted: bool
    reasons: list[str] = Field(default_factory=list, description="Why it was rejected (empty when accepted).")
    against_nothing: list[str] = Field(
        default_factory=list,
        description="Level 0's findings between its recording and a do-nothing agent's trace (kind: detail).",
    )
    trace: str | None = Field(default=None, description="Its recording, relative to the generated folder.")


def do_nothing(trace: Trace) -> Trace:
    """The trace a do-nothing agent leaves on the same task: the same skill loaded, no tool call, a fixed answer.

    The final state is dropped so that it is computed from the (empty) calls, never copied from the recording.
    """
    return trace.model_copy(
        update={"tool_calls": [], "volatile_reads": [], "final_output": DO_NOTHING_ANSWER, "final_state": None}
    )


def against_nothing(trace: Trace) -> list[str]:
    """Level 0's differences (hard or diff) between a recording and the do-nothing agent's trace."""
    return [
        f"{finding.kind}: {finding.detail}"
        for finding in level0_findings(trace, do_nothing(trace))
        if finding.severity in ("hard", "diff")
    ]


class _ScratchProject(Project):
    """The project read from a scratch copy, writing its pending traces where the audit says."""

    pending_at: Path

    @property
    def pending_dir(self) -> Path:
        return self.pending_at


def _scratch(project: Project, tasks: Sequence[Task], where: Path) -> _ScratchProject:
    """A copy of the project's skills, world and workspaces with the candidates as its tasks.yaml."""
    if where.exists():
        shutil.rmtree(where)
    root = where / "project"
    for name, source in (
        ("skills", project.path("skills")),
        ("world", project.path("world")),
        ("workspaces", project.path("workspaces")),
    ):
        if source.is_dir():
            shutil.copytree(source, root / getattr(project.config.paths, name), symlinks=True)
    atomic_write_text(root / project.config.paths.tasks, tasks_yaml(tasks))
    return _ScratchProject(root=root, config=project.config, home=project.home, pending_at=where / "pending")


def _refuse_unfollowed(scratch: Project, skill: str) -> None:
    """On the simulator, a skill it cannot follow would make every recording show nothing: one line, exit 2."""
    for unfollowed in plan_record(scratch).unfollowed:
        if optional_skill_key(unfollowed.skill) == optional_skill_key(skill):
            raise SkillError(
                f"the simulator cannot follow skill {skill} ({unfollowed.reason}): generated tasks would record "
                "nothing it asks for; generate them with a live upstream",
                path=unfollowed.path,
                line=unfollowed.line,
            )


def record_and_audit(
    project: Project, skill: str, candidates: Sequence[Generated], work: Path
) -> tuple[list[TaskAudit], dict[str, Trace], float]:
    """Record every candidate in a scratch copy under `work`; the audit of each, the traces recorded, the cost."""
    tasks = [generated.task for generated in candidates]
    audits: list[TaskAudit] = []
    traces: dict[str, Trace] = {}
    if not tasks:
        return audits, traces, 0.0
    scratch = _scratch(project, tasks, work)
    _refuse_unfollowed(scratch, skill)
    result = record_tasks(scratch, [task.id for task in tasks])
    failed = {line.split(": ", 1)[0]: line for line in result.errors}
    evidence = project_evidence(scratch)
    for generated in candidates:
        task = generated.task
        if task.id in failed:
            audits.append(rejected(generated, f"its recording failed: {failed[task.id]}"))
            continue
        trace = read_trace(scratch.pending_dir / f"{task.id}.json")
        traces[task.id] = trace
        audits.append(audit_recording(generated, trace, evidence.exercise(trace, task.skill).missing))
    return audits, traces, result.cost_usd


def rejected(generated: Generated, why: str) -> TaskAudit:
    """The audit of a task rejected before its recording could be judged."""
    task = generated.task
    return TaskAudit(
        id=task.id,
        template=generated.template,
        horizon=generated.horizon,
        distractors=generated.distractors,
        edge_case=generated.edge_case,
        variant=generated.variant,
        prompt=task.prompt,
        accepted=False,
        reasons=[why],
    )


def _leaves(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for nested in value.values():
            yield from _leaves(nested)
    elif isinstance(value, list):
        for nested in value:
            yield from _leaves(nested)
    else:
        yield value


def names(call: ToolCall, item: Item) -> bool:
    """Whether a call's arguments name an item: some value in them is it (as the slot holds it or the prompt shows
    it), or a string holding it as a whole word (`reports/q3.csv` names `q3.csv`; `1020` does not name `102`)."""
    words = {str(item.value), item.shown}
    patterns = [re.compile(rf"(?<![A-Za-z0-9]){re.escape(word)}(?![A-Za-z0-9])") for word in words if word]
    for leaf in _leaves(call.arguments):
        text = leaf if isinstance(leaf, str) else str(leaf)
        if text in words or (isinstance(leaf, str) and any(p.search(leaf) for p in patterns)):
            return True
    return False


def _acted_on(generated: Generated, trace: Trace) -> list[str]:
    """Why the recording did not do what the prompt asks of its items: one named item no call touches, or a decoy
    a side-effecting call touches. A golden that never acted on an item pins down nothing about it."""
    reasons = [
        f"no call names item {item.shown}: the recording did not act on it"
        for item in generated.items
        if not any(names(call, item) for call in trace.tool_calls)
    ]
    for decoy in generated.decoys:
        for call in trace.tool_calls:
            if call.effect in SIDE_EFFECTS and names(call, decoy):
                reasons.append(
                    f"decoy {decoy.shown} is in the arguments of {call.name} (call {call.index}, a {call.effect})"
                )
                break
    return reasons


def audit_recording(generated: Generated, trace: Trace, missing: Sequence[str]) -> TaskAudit:
    """The audit of one recorded task; `missing` is what the thin-golden check found absent (empty: at work)."""
    task = generated.task
    reasons: list[str] = []
    if optional_skill_key(trace.fired_skill) != optional_skill_key(task.skill):
        reasons.append(f"it loaded {trace.fired_skill or 'no skill'}, not {task.skill}")
    elif missing:
        reasons.append(f"it shows no sign of skill {task.skill} at work: {'; '.join(missing)}")
    reasons.extend(_acted_on(generated, trace))
    differs = against_nothing(trace)
    kinds = sorted({line.split(":", 1)[0] for line in differs})
    if not differs:
        reasons.append("a do-nothing agent's trace is the same at Level 0: no regression could show on it")
    elif set(kinds) <= WORDING_ONLY:
        reasons.append(
            f"it differs from a do-nothing agent's trace only in wording ({', '.join(kinds)}): "
            "its golden could catch no change in what the skill does"
        )
    return rejected(generated, "").model_copy(
        update={
            "accepted": not reasons,
            "reasons": reasons,
            "against_nothing": differs,
            "trace": f"traces/{task.id}.json",
        }
    )
