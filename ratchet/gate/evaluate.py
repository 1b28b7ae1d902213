"""Evaluate: the git-free core of the gate. Skill sets, tasks and goldens in; a Verdict and its replays out.

select -> (gate_pair for each selected golden, again while repeats can change it) -> decide, with what no replay could see (unseen)
named once per edit and folded into the decision. `check_edit` reads two git states and
calls this; the bench calls it with an edited SKILL.md and a world overlay, and stores the
replays it returns so other configurations can re-judge them without a second round of agent
calls (a Replayer of stored replays). What the stages gate with comes in one object, the check's
context (ratchet.gate.context).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from ratchet.config.project import Project
from ratchet.core.clock import elapsed_ms
from ratchet.core.errors import BudgetError
from ratchet.gate.context import CheckContext
from ratchet.gate.decide import decide_edit, no_change, pairs_cost, with_unchecked
from ratchet.gate.judge_notes import free_text_notes
from ratchet.gate.models import EditReplays, PairOutcome, Selected, Unseen, Verdict
from ratchet.gate.policy import BUDGET_STOPPED
from ratchet.gate.provenance import unseen_with_provenance, with_provenance
from ratchet.gate.repeats import gate_repeated
from ratchet.gate.replay import Replayer
from ratchet.gate.sandbox_notes import sandbox_notes
from ratchet.gate.select import affected_goldens
from ratchet.gate.thin import Evidence
from ratchet.gate.unseen import thin_notes, unseen_notes
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import Trace
from ratchet.harness.bwrap_mode import sandbox_why
from ratchet.harness.versions import untested_versions
from ratchet.sim.harness_steps import harness_step_tools
from ratchet.store.parsed import ParsedCache
from ratchet.world.state import WorldFiles
from ratchet.world.tools import offered_tools


class Evaluation(BaseModel):
    """A verdict and the replays behind it, with the whole run's selection and unseen notes (what a shard's
    file needs beyond its own pairs, ratchet.gate.shard)."""

    verdict: Verdict
    replays: EditReplays
    selected: list[str] = Field(default_factory=list, description="Task ids of the whole selection, in order.")
    unseen: list[Unseen] = Field(
        default_factory=list,
        description="What no replay could see, over all goldens (the pairs' provenance notes are named from the pairs).",
    )


def evaluate_edit(
    run: CheckContext,
    replays: Replayer,
    *,
    changed: Sequence[str],
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    changed_files: Mapping[str, Sequence[str]] | None = None,
    offered: frozenset[str] | None = None,
    selection: Sequence[Selected] | None = None,
) -> Evaluation:
    """Gate one edit: select, then each selected golden through the pair pipeline, then decide.

    `replays` holds the two skill sets and where the replays come from: the agent over its tree (the
    world and workspaces, with its overlays), or stored replays (no agent call; a missing one is an
    InputError). `run` is the check's context: a config with no judge tiers is Level 0 only, and a pair
    that needs judging is `unsure` (WARN); with `run.shard`, only that shard's part of the selection is
    replayed, while the selection and the unseen notes are the whole run's (returned for its shard file).
    `changed_files` maps a changed skill to the repo paths changed in its folder: any but its
    SKILL.md is never sent to the agent, so the verdict names it (ratchet.gate.unseen).
    `offered` is the tool names offered over the world with these overlays, when the caller already has
    them (the bench computes them once per overlay). `selection`: the goldens to replay, chosen by the caller
    (a change of the agent replays every golden, ratchet.gate.model_change), even when no skill changed.
    """
    started = run.clock() if run.started is None else run.started
    if not changed and selection is None:
        verdict = no_change(
            base=run.base,
            head=run.head,
            simulated=replays.simulated,
            on_error=run.policy,
            wall_ms=elapsed_ms(run.clock, started),
        )
        return Evaluation(verdict=verdict, replays=replays.recorded)
    project = replays.project
    selected = list(selection) if selection is not None else _affected(replays, tasks, goldens, changed)
    shard = run.shard
    replayed = selected if shard is None else [item for at, item in enumerate(selected) if shard.owns(at)]
    # Each pair with how its golden was recorded otherwise than its replay ran (ratchet.gate.provenance).
    pairs = [
        with_provenance(pair, item.golden, replays.recorded.replays.get(item.replay_key), agent=run.agent_was)
        for pair, item in zip(_gate_pairs(run, replays, replayed), replayed, strict=True)
    ]
    if offered is None:
        offered = (
            offered_tool_names(project, replays.tree, replays.overlays, world_files=replays.world_files)
            if replays.simulated
            else frozenset()
        )
    unseen = _unseen(replays, changed, tasks, goldens, changed_files=changed_files or {}, offered=offered)
    unseen = [*_thin(replays, selected), *unseen]  # replayed goldens that show no sign of their skill at work
    decision, summary = decide_edit(pairs, on_error=run.policy, block_confidence=run.config.block_confidence)
    verdict = Verdict(
        base=run.base,
        head=run.head,
        skills_changed=list(changed),
        decision=decision,
        summary=summary,
        pairs=pairs,
        goldens_total=len(goldens),
        cost_usd=pairs_cost(pairs),
        wall_ms=elapsed_ms(run.clock, started),
        simulated=replays.simulated,
        on_error=run.policy,
        gate_config=run.config.name,
        harness_untested=untested_versions(_harnesses(replays.recorded)),
    )
    return Evaluation(
        # The judge notes are this run's (a tier answered in free text), so a shard's file does not carry them.
        verdict=with_unchecked(
            verdict,
            unseen=unseen_with_provenance(pairs, [*unseen, *free_text_notes(run.judges, pairs), *_sandbox(replays)]),
        ),
        replays=_in_order(replays.recorded, replayed),
        selected=[item.task.id for item in selected],
        unseen=unseen,
    )


def _harnesses(recorded: EditReplays) -> list[tuple[str, str]]:
    """(harness, version) of every replay this evaluation made or read, to name a release outside the tested range."""
    traces = [*recorded.replays.values(), *recorded.base_replays.values()]
    return [(t.harness.name, t.harness.version) for t in traces if t.harness is not None]


def _sandbox(replays: Replayer) -> list[Unseen]:
    """This run's harness replays that ran without bubblewrap, named once with this machine's reason
    (ratchet.gate.sandbox_notes); a shard's file carries its own to the merge (ratchet.gate.shard)."""
    recorded = replays.recorded
    why = sandbox_why(replays.project.config.harness)
    shell = replays.project.config.harness.shell_tools  # commands reached the host: a warning (sandbox_notes)
    return sandbox_notes([*recorded.replays.values(), *recorded.base_replays.values()], why=why, shell=shell)


def _affected(
    replays: Replayer, tasks: Sequence[Task], goldens: Mapping[str, Trace], changed: Sequence[str]
) -> list[Selected]:
    """The goldens the edited skills can affect (ratchet.gate.select), by the project's routing."""
    config = replays.project.config
    return affected_goldens(
        tasks,
        goldens,
        changed,
        replays.head_skills,
        routing="model" if config.routes_by_model else "lexical",
        base_skills=replays.base_skills,
        neighbours=config.routing_neighbours,
        cache=ParsedCache(replays.project.home),
    )


def _unseen(
    replays: Replayer,
    changed: Sequence[str],
    tasks: Sequence[Task],
    goldens: Mapping[str, Trace],
    *,
    changed_files: Mapping[str, Sequence[str]],
    offered: frozenset[str],
) -> list[Unseen]:
    """What no replay could see (ratchet.gate.unseen), over all of the run's goldens."""
    harness = replays.project.config.harness
    return unseen_notes(
        changed=changed,
        base_skills=replays.base_skills,
        head_skills=replays.head_skills,
        tasks=tasks,
        goldens=goldens,
        changed_files=changed_files,
        # Behind a harness with a shell the simulator also follows command and read steps.
        tools=offered | harness_step_tools(harness.name, harness.builtin_tools) if replays.simulated else None,
        harness=harness.name,
    )


def _thin(replays: Replayer, selected: Sequence[Selected]) -> list[Unseen]:
    """The selected goldens thin against the base's skills (ratchet.gate.thin), decided here, not read off
    their `thin` flag: a golden blessed before the check existed, or with the flag stripped, is named too."""
    world = replays.world_files.world(workspaces_dir=None, workspace=None, frozen_time=replays.project.config.clock)
    evidence = Evidence.over(replays.base_skills, world)
    return thin_notes([(item.golden, evidence.exercise(item.golden, item.task.skill).thin) for item in selected])


def _gate_pairs(run: CheckContext, replays: Replayer, selected: Sequence[Selected]) -> list[PairOutcome]:
    """Each selected golden through the pair pipeline (ratchet.gate.repeats), on the run's pool if it has one."""

    def one_pair(item: Selected) -> PairOutcome:
        try:
            return gate_repeated(item, replays, run)
        except BudgetError as exc:
            if not run.unchecked_at_cap:
                raise
            return budget_stopped(item, exc)

    return run.pool.map_ordered(one_pair, selected) if run.pool is not None else [one_pair(item) for item in selected]


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
