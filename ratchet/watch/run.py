"""`ratchet watch`: replay a sample of blessed goldens under their unchanged skills with the configured agent
model, and say per skill whether the model's behaviour moved beyond the goldens' noise records.

Each chosen golden (ratchet.watch.select) is replayed `repeats` times with seeds from
derived_seed("watch", task id, repeat), through the same Replayer a noise measurement uses (minimal runner or
the configured harness, the working tree's world), and compared with its golden as a noise repeat is
(ratchet.watch.compare). The response cache never answers a watch replay (cache mode `new`: every call goes
to the model, and only answers not cached yet are written): the model behind the name may have changed since
an answer was cached, and a cached answer would hide exactly that. The agent tier is preflighted first, then
the estimate is printed, and `budget_usd` caps the run; replays the budget refused are
reported, never counted.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field

from ratchet.config.project import Project, refuse_world_at_nothing
from ratchet.core.chat import ChatModel
from ratchet.core.echo import silent
from ratchet.core.errors import BudgetError, InputError
from ratchet.core.ids import derived_seed
from ratchet.core.pool import WorkPool
from ratchet.core.ray_cluster import checked_executor
from ratchet.gate.noise import MAX_REPEATS
from ratchet.gate.replay import Replayer
from ratchet.goldens.noise import load_noise_records
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import load_golden_files
from ratchet.llm.budget import check_affordable, estimate
from ratchet.llm.cache import CacheMode
from ratchet.llm.gateway import Gateway
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.store.db import open_store
from ratchet.watch.compare import answered_models, classify
from ratchet.watch.models import ReplayOutcome, WatchModels, WatchReport
from ratchet.watch.select import Selection, Watched, select_goldens
from ratchet.watch.stats import decide, tally

__all__ = ["WatchOptions", "watch_project", "watch_seed"]

PURPOSE = "watch"
"""What the ledger calls a watch replay's model calls."""


@dataclass(frozen=True)
class WatchOptions:
    """What `ratchet watch` takes."""

    skills: tuple[str, ...] = ()
    """Skills to watch; none: every skill with a golden."""
    per_skill: int = 3
    repeats: int = 4
    alpha: float = 0.05
    budget_usd: float | None = None
    concurrency: int = 1
    echo: Callable[[str], None] = silent
    """Progress on stderr: the estimate."""
    upstream_models: Mapping[str, ChatModel] = field(default_factory=dict)
    """The raw model behind a tier (Gateway's upstream_models): tests stand a fake model behind `agent`."""
    executor: str = "local"
    """"local": this process's pool; "ray": Ray actors, `concurrency` at once (ratchet.watch.on_ray), the
    same report."""
    ray_address: str | None = None
    """With executor "ray": the cluster's head (None: a local Ray started for the run)."""


def watch_seed(task_id: str, repeat: int) -> int:
    return derived_seed("watch", task_id, repeat)


def _checked(opts: WatchOptions) -> None:
    checked_executor(opts.executor, opts.ray_address)
    if opts.per_skill < 1:
        raise InputError(f"--per-skill must be at least 1, got {opts.per_skill}")
    if not 1 <= opts.repeats <= MAX_REPEATS:
        raise InputError(f"--repeats must be between 1 and {MAX_REPEATS}, got {opts.repeats}")
    if not 0.0 < opts.alpha < 1.0:
        raise InputError(f"--alpha must be between 0 and 1 (exclusive), got {opts.alpha}")


def _select(project: Project, opts: WatchOptions, agent: str) -> tuple[Selection, dict[str, Skill]]:
    """The goldens to watch and the working tree's skills (what they are replayed under): only goldens whose
    noise record was measured with this run's agent model (`agent`) on this upstream."""
    files = load_golden_files(project.path("goldens"))
    if not files:
        raise InputError("no goldens to watch: record and bless some first (ratchet record, ratchet bless --repeats N)")
    skills = load_skills(project.path("skills"))
    selection = select_goldens(
        files,
        load_noise_records(files),
        load_tasks(project.path("tasks")),
        skills,
        only=opts.skills,
        per_skill=opts.per_skill,
        agent=agent,
        simulated=project.config.upstream == "sim",
    )
    if not selection.goldens:
        first = selection.not_watched[0]
        raise InputError(
            f"nothing to watch: none of {len(selection.not_watched)} golden(s) has a fresh noise record of this "
            f"agent model and an unchanged skill (first {first.task_id}: {first.why}; {first.detail})"
        )
    return selection, skills


def replay_once(replays: Replayer, item: Watched, repeat: int) -> ReplayOutcome:
    """One replay of a watched golden, with the watch's seed for `repeat`."""
    reseeded = item.golden.model_copy(update={"seed": watch_seed(item.task.id, repeat)})
    try:
        trace = replays.run(item.task, reseeded, replays.head_skills, purpose=PURPOSE)
    except BudgetError as exc:  # the run's cap: this replay is reported, never counted
        return ReplayOutcome(task_id=item.task.id, repeat=repeat, kind="stopped", detail=exc.one_line())
    return classify(item.task.id, repeat, item.golden, trace)


def _on_ray(project: Project, run_id: str, selection: Selection, opts: WatchOptions) -> list[ReplayOutcome]:
    """The replays as Ray actors run them, in the local run's order (golden, then repeat)."""
    from ratchet.watch.on_ray import ReplaySpec, replayed_on_ray

    spec = ReplaySpec(project=project, run_id=run_id, budget_usd=opts.budget_usd, repeats=opts.repeats)
    return replayed_on_ray(spec, selection.goldens, opts.concurrency, opts.ray_address)


def watch_project(project: Project, opts: WatchOptions) -> WatchReport:
    """Replay, compare with the noise records, and test each skill; the report (nothing is written)."""
    _checked(opts)
    refuse_world_at_nothing(project)
    simulated = project.config.upstream == "sim"
    with (
        closing(open_store(project.home)) as store,
        Gateway(
            project,
            store,
            simulator=SIMULATOR,
            run_id=f"watch-{uuid.uuid4().hex[:12]}",
            cache_mode=CacheMode.NEW,
            budget_usd=opts.budget_usd,
            upstream_models=opts.upstream_models,
        ) as gateway,
    ):
        agent = gateway.model("agent", PURPOSE)
        # Before anything else: a missing key or an upstream that does not answer is one line, not one per replay.
        gateway.preflight(["agent"])
        # After the preflight: which records are this model's needs the model, and a server that is down is
        # the first thing to fix.
        selection, skills = _select(project, opts, agent.model_id)
        jobs = [(item, repeat) for item in selection.goldens for repeat in range(opts.repeats)]
        plan = estimate(project.config, {"replay": len(jobs)})
        opts.echo(plan.render() + ("  (simulated: no money is spent)" if simulated else ""))
        if not simulated:
            check_affordable(store, plan)
        if opts.executor == "ray":
            outcomes = _on_ray(project, gateway.run_id, selection, opts)
        else:
            replays = Replayer(project, tree=project.root, head_skills=skills, base_skills=skills, agent=agent)
            with WorkPool(opts.concurrency, name="ratchet-watch") as pool:
                outcomes = pool.map_ordered(lambda job: replay_once(replays, *job), jobs)
        cost = gateway.spent()
    tallies = [tally(skill, items, outcomes, selection.available[skill]) for skill, items in selection.by_skill.items()]
    decided = decide(tallies, alpha=opts.alpha, repeats=opts.repeats)
    models = WatchModels(
        answered=sorted({model for outcome in outcomes for model in outcome.models}),
        goldens=sorted({model for item in selection.goldens for model in answered_models(item.golden)}),
        noise=sorted({item.record.agent for item in selection.goldens}),
    )
    stopped = next((outcome.detail for outcome in outcomes if outcome.kind == "stopped"), None)
    return WatchReport(
        simulated=simulated,
        repeats=opts.repeats,
        per_skill=opts.per_skill,
        alpha=opts.alpha,
        models=models,
        skills=decided,
        replays=outcomes,
        not_watched=selection.not_watched,
        estimate_usd=plan.total_usd,
        cost_usd=cost,
        stopped=stopped,
        moved=[skill.skill for skill in decided if skill.moved],
        undecided=[skill.skill for skill in decided if not skill.told],
    )
