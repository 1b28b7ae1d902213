"""Evaluate: the git-free core of the gate. Skill sets, tasks and goldens in; a Verdict and its replays out.

select -> (gate_pair for each selected golden, again while repeats can change it) -> decide, with what no replay could see (unseen)
named once per edit and folded into the decision. `check_edit` reads two git states and
calls this; the bench calls it with an edited SKILL.md and a world overlay, and stores the
replays it returns so other configurations can re-judge them without a second round of agent
calls (`stored=`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

from ratchet.clock import Clock, elapsed_ms, wall_clock
from ratchet.config import Project
from ratchet.diff.models import EditDiff
from ratchet.errors import BudgetError
from ratchet.gate.decide import decide_edit, no_change, with_unchecked
from ratchet.gate.drift import FactSearch
from ratchet.gate.gate_config import GateConfig
from ratchet.gate.models import EditReplays, PairOutcome, Selected, Verdict
from ratchet.gate.policy import BUDGET_STOPPED, OnError
from ratchet.gate.repeats import gate_repeated
from ratchet.gate.replay import Replayer
from ratchet.gate.select import affected_goldens
from ratchet.gate.unseen import unseen_notes
from ratchet.llm.types import ChatModel
from ratchet.noise_record import NoiseRecord
from ratchet.skills import Skill
from ratchet.tasks import Task
from ratchet.trace import Trace
from ratchet.world.state import WorldFiles
from ratchet.world.tools import offered_tools

if TYPE_CHECKING:  # a pool's threads (concurrent.futures) only for --concurrency > 1: ratchet.gate.check makes it
    from ratchet.pool import WorkPool


class Evaluation(BaseModel):
    """A verdict and the replays behind it."""

    verdict: Verdict
    replays: EditReplays


def evaluate_edit(
    *,
    project: Project,
    changed: Sequence[str],
    base_skills: Mapping[str, Skill],
    head_skills: Mapping[str, Skill],
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    tree: Path,
    agent: ChatModel | None,
    config: GateConfig,
    judges: Mapping[str, ChatModel] | None = None,
    search: FactSearch | None = None,
    overlays: tuple[Path, ...] = (),
    stored: EditReplays | None = None,
    keep_base_replays: bool = False,
    on_error: OnError = OnError.WARN,
    base: str = "base",
    head: str = "head",
    clock: Clock = wall_clock,
    started: float | None = None,
    changed_files: Mapping[str, Sequence[str]] | None = None,
    pool: WorkPool | None = None,
    offered: frozenset[str] | None = None,
    noise: Mapping[str, NoiseRecord] | None = None,
    unchecked_at_cap: bool = False,
    diffs: EditDiff | None = None,
) -> Evaluation:
    """Gate one edit: select, then each selected golden through the pair pipeline, then decide.

    `tree` holds the world and workspaces (project paths); `overlays` are world files merged
    over it. A config with no judge tiers is Level 0 only: a pair that needs judging is
    `unsure` (WARN). With `stored`, no agent call is made: a missing replay is an InputError.
    `started` is when the caller's clock started (check counts exporting the two states too).
    `changed_files` maps a changed skill to the repo paths changed in its folder: any but its
    SKILL.md is never sent to the agent, so the verdict names it (ratchet.gate.unseen).
    `pool` runs the selected pairs side by side (ratchet.pool; the pairs and replays come back in
    selection order, as without it); `offered` is the tool names offered over the world with
    these overlays, when the caller already has them (the bench computes them once per overlay).
    `noise` maps a task id to its golden's noise record: a pair that differs only where its golden is
    known to vary is replayed again and blocks only on the exact test (ratchet.gate.repeats).
    `unchecked_at_cap`: a pair the spend cap refuses (BudgetError) is an `error` pair decided by
    BUDGET_STOPPED and the others go on, so the verdict so far is kept (`ratchet check`); without it the
    refusal stops the run (the bench).
    `diffs`: the edit's behavioural diff (ratchet.diff), context for the judges: each pair's judges see the
    findings of the skills it ran, in a fenced `skill_diff` section. `ratchet check` and the bench pass it,
    so both judge with the same context; None (the noise measurement, tests) shows none.
    """
    started = clock() if started is None else started
    policy = OnError(on_error).value
    simulated = project.config.upstream == "sim"
    replayer = Replayer(
        project,
        tree=tree,
        head_skills=head_skills,
        base_skills=base_skills,
        agent=agent,
        stored=stored,
        overlays=overlays,
        clock=clock,
    )
    if not changed:
        verdict = no_change(
            base=base, head=head, simulated=simulated, on_error=policy, wall_ms=elapsed_ms(clock, started)
        )
        return Evaluation(verdict=verdict, replays=replayer.recorded)
    selected = affected_goldens(
        tasks,
        goldens,
        changed,
        head_skills,
        routing="model" if project.config.routes_by_model else "lexical",
        base_skills=base_skills,
        neighbours=project.config.routing_neighbours,
    )

    def one_pair(item: Selected) -> PairOutcome:
        try:
            return gate_repeated(
                item,
                replayer,
                record=(noise or {}).get(item.task.id),
                config=config,
                judges=judges or {},
                search=search,
                clock=clock,
                record_base=keep_base_replays,
                diffs=diffs.skills if diffs is not None else (),
            )
        except BudgetError as exc:
            if not unchecked_at_cap:
                raise
            return budget_stopped(item, exc)

    pairs = pool.map_ordered(one_pair, selected) if pool is not None else [one_pair(item) for item in selected]
    if offered is None:
        offered = (
            offered_tool_names(project, tree, overlays, world_files=replayer.world_files) if simulated else frozenset()
        )
    unseen = unseen_notes(
        changed=changed,
        base_skills=base_skills,
        head_skills=head_skills,
        tasks=tasks,
        goldens=goldens,
        changed_files=changed_files or {},
        tools=offered,
        simulated=simulated,
    )
    decision, summary = decide_edit(pairs, on_error=policy, block_confidence=config.block_confidence)
    verdict = Verdict(
        base=base,
        head=head,
        skills_changed=list(changed),
        decision=decision,
        summary=summary,
        pairs=pairs,
        goldens_total=len(goldens),
        cost_usd=sum(p.cost_usd for p in pairs),
        wall_ms=elapsed_ms(clock, started),
        simulated=simulated,
        on_error=policy,
        gate_config=config.name,
    )
    return Evaluation(verdict=with_unchecked(verdict, unseen=unseen), replays=_in_order(replayer.recorded, selected))


def budget_stopped(item: Selected, refusal: BudgetError) -> PairOutcome:
    """A pair the spend cap refused a call of: not checked, named with the refusal (never PASS).

    What its calls before the refusal cost is in the ledger, not in the pair. Its replay skill is the
    golden's: no replay ran, so none moved (the renderers read a difference as a routing change).
    """
    return PairOutcome(
        task_id=item.task.id,
        golden_skill=item.golden.fired_skill,
        replay_skill=item.golden.fired_skill,
        selected_because=item.because,
        outcome="error",
        decided_by=BUDGET_STOPPED,
        reason=f"not checked: {refusal.message}",
        error=refusal.message,
    )


def _in_order(recorded: EditReplays, selected: Sequence[Selected]) -> EditReplays:
    """The replays in selection order, as a sequential loop records them, however the pool finished them
    (a pair's repeats, `<task>#<run>`, right after its first replay)."""
    order = [item.task.id for item in selected]
    runs: dict[str, list[str]] = {}
    for key in recorded.replays:
        task_id, _, run = key.partition("#")
        if run:
            runs.setdefault(task_id, []).append(key)
    keys = [k for tid in order for k in [tid, *sorted(runs.get(tid, []), key=lambda r: int(r.partition("#")[2]))]]
    return recorded.model_copy(
        update={
            "replays": {key: recorded.replays[key] for key in keys if key in recorded.replays},
            "base_replays": {tid: recorded.base_replays[tid] for tid in order if tid in recorded.base_replays},
        }
    )


def offered_tool_names(
    project: Project, tree: Path, overlays: tuple[Path, ...] = (), *, world_files: WorldFiles | None = None
) -> frozenset[str]:
    """The tool names the agent is offered over the project's world (what the simulator reads calls against).

    `world_files`: that world (tree and overlays) already read, as the replays' Replayer holds it.
    """
    files = world_files if world_files is not None else WorldFiles(tree / project.config.paths.world, overlays=overlays)
    world = files.world(workspaces_dir=None, workspace=None, frozen_time=project.config.clock)
    return frozenset(tool.name for tool in offered_tools(world))
