"""`ratchet triggers` as a function: load the queries, preflight, estimate, run under the cap, count.

The agent tier is preflighted first (a dead upstream is one line, exit 3), unless no model is called
(the minimal harness with `routing: lexical`). The estimate (queries x repeats x one turn's tokens at
the agent's price) is handed to `echo` before any run; on the live path it must fit what is left of
the global cap. `budget_usd` caps the run's spend: the runs finished before the cap are reported,
with `stopped` saying why the rest did not run. The gateway's cache mode is the default (`once`): a
repeat of a request already answered (same query, same seed, same skills) is free.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass, field

from ratchet.agent.catalog import catalog_system_prompt
from ratchet.config.project import Project
from ratchet.core.chat import ChatModel, ChatRequest, ChatResponse, approx_tokens
from ratchet.core.echo import silent
from ratchet.core.errors import InputError, ModelCallError, TaskFileError
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.triggers import TRIGGERS_FILE, TriggerQuery, load_trigger_queries
from ratchet.harness.bwrap_mode import fallback_line
from ratchet.llm.budget import CallBudget, Estimate, check_affordable, estimate
from ratchet.llm.gateway import Gateway
from ratchet.sim.models import SIMULATOR
from ratchet.skills.names import skill_key
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.store.db import open_store
from ratchet.triggers.models import QueryRuns
from ratchet.triggers.rates import TriggerReport, query_rate, skill_rates
from ratchet.triggers.run import TriggersStopped, run_queries

__all__ = ["TriggerOptions", "evaluate_triggers", "select_queries", "turn_budget"]

PURPOSE = "trigger"
TURN_TOKENS_OUT = 300
"""Output tokens of one deciding turn: a load_skill call or a short answer."""
HARNESS_TURN_TOKENS_IN = 25_000
"""Input tokens of one turn of a real harness, whose own system prompt and tool list dwarf the catalog.
One turn a run holds there too: Ratchet answers every turn after a load itself, at $0 (ratchet.triggers.stop)."""
MAX_REPEATS = 200


@dataclass(frozen=True)
class TriggerOptions:
    """What `ratchet triggers` takes."""

    skills: tuple[str, ...] = ()
    """Only the queries about these skills; none: every query (canaries included)."""
    repeats: int = 5
    budget_usd: float | None = None
    echo: Callable[[str], None] = silent
    """Progress on stderr: the estimate line."""
    upstream_models: Mapping[str, ChatModel] = field(default_factory=dict)
    """The raw model behind a tier (Gateway's upstream_models): tests stand a fake model behind `agent`."""


def calls_model(project: Project) -> bool:
    """Whether a trigger run asks the agent model: not on the minimal harness with `routing: lexical`."""
    return project.config.routes_by_model


def select_queries(
    queries: Sequence[TriggerQuery], skills: Mapping[str, Skill], only: Sequence[str]
) -> list[TriggerQuery]:
    """The queries to run; InputError for a query or --skill naming a skill the library does not have."""
    known = {skill_key(name) for name in skills}
    for query in queries:
        if query.skill is not None and skill_key(query.skill) not in known:
            where = TRIGGERS_FILE if query.source == "triggers" else "tasks.yaml"
            raise InputError(
                f"{where}: query {query.id} names skill {query.skill!r}, which is not in the skills folder"
            )
    missing = [name for name in only if skill_key(name) not in known]
    if missing:
        raise InputError(f"--skill {missing[0]}: no such skill (the skills folder has: {', '.join(sorted(skills))})")
    if not only:
        return list(queries)
    wanted = {skill_key(name) for name in only}
    return [q for q in queries if q.skill is not None and skill_key(q.skill) in wanted]


def turn_budget(project: Project, queries: Sequence[TriggerQuery], skills: Mapping[str, Skill]) -> CallBudget:
    """One deciding turn's tokens: the catalog prompt and the longest query, or a harness turn."""
    if not project.config.harness.is_minimal:
        return CallBudget(tier="agent", tokens_in=HARNESS_TURN_TOKENS_IN, tokens_out=TURN_TOKENS_OUT)
    catalog = approx_tokens(catalog_system_prompt(project.config.clock, skills))
    longest = max((approx_tokens(q.prompt) for q in queries), default=0)
    return CallBudget(tier="agent", tokens_in=catalog + longest, tokens_out=TURN_TOKENS_OUT)


def estimate_line(plan: Estimate | None, *, queries: int, repeats: int, simulated: bool) -> str:
    runs = (
        f"{queries * repeats} trigger run(s) ({queries} quer{'y' if queries == 1 else 'ies'} x {repeats} "
        f"repeat{'' if repeats == 1 else 's'})"
    )
    if plan is None:
        return f"estimate: {runs}; routing: lexical calls no model: $0"
    line = plan.lines[0]
    text = (
        f"estimate: {runs} x ~{line.tokens_in:,} tokens in / {line.tokens_out} out per turn "
        f"at {line.model}: ${plan.total_usd:.4f}"
    )
    return text + (" (simulated dollars: the simulator answers, no money is spent)" if simulated else "")


def _report(
    project: Project, done: list[QueryRuns], *, repeats: int, plan: Estimate | None, cost: float, stopped: str | None
) -> TriggerReport:
    config = project.config
    return TriggerReport(
        simulated=config.upstream == "sim",
        harness=config.harness.name,
        routing=config.routing if config.harness.is_minimal else "model",
        repeats=repeats,
        queries=[query_rate(runs) for runs in done],
        skills=skill_rates(done),
        runs=done,
        estimate_usd=plan.total_usd if plan is not None else 0.0,
        cost_usd=cost,
        stopped=stopped,
    )


def evaluate_triggers(project: Project, opts: TriggerOptions) -> TriggerReport:
    """Run the project's trigger queries and count them; nothing is written but the cache and the ledger."""
    if not 1 <= opts.repeats <= MAX_REPEATS:
        raise InputError(f"--repeats must be between 1 and {MAX_REPEATS}, got {opts.repeats}")
    tasks_path = project.path("tasks")
    tasks = load_tasks(tasks_path) if tasks_path.exists() else []
    skills = load_skills(project.path("skills"))
    queries = select_queries(load_trigger_queries(tasks_path, tasks), skills, opts.skills)
    if not queries:
        raise TaskFileError(
            "no trigger queries to run: write triggers.yaml beside tasks.yaml (docs/triggers.md)"
            + (f" or drop --skill {opts.skills[0]}" if opts.skills else ""),
            path=tasks_path.parent / TRIGGERS_FILE,
        )
    simulated = project.config.upstream == "sim"
    with (
        closing(open_store(project.home)) as store,
        Gateway(
            project,
            store,
            simulator=SIMULATOR,
            run_id=f"triggers-{uuid.uuid4().hex[:12]}",
            budget_usd=opts.budget_usd,
            upstream_models=opts.upstream_models,
        ) as gateway,
    ):
        plan: Estimate | None = None
        agent: ChatModel = _NoModel()
        if calls_model(project):
            agent = gateway.model("agent", PURPOSE)
            gateway.preflight(["agent"])
            budget = turn_budget(project, queries, skills)
            plan = estimate(project.config, {PURPOSE: len(queries) * opts.repeats}, budgets={PURPOSE: budget})
        opts.echo(estimate_line(plan, queries=len(queries), repeats=opts.repeats, simulated=simulated))
        unsandboxed = fallback_line(project.config.harness)  # the one line a run without bubblewrap says it in
        if unsandboxed is not None:
            opts.echo(f"note: {unsandboxed}")
        if plan is not None and not simulated:
            check_affordable(store, plan)
        stopped: str | None = None
        try:
            done = run_queries(queries, skills, project=project, model=agent, repeats=opts.repeats)
        except TriggersStopped as exc:
            done, stopped = exc.done, exc.message
        cost = gateway.spent()
    return _report(project, done, repeats=opts.repeats, plan=plan, cost=cost, stopped=stopped)


class _NoModel:
    """The model of runs that call none (routing: lexical): the matcher decides, nothing is asked."""

    @property
    def model_id(self) -> str:
        return "none"

    def complete(self, request: ChatRequest) -> ChatResponse:
        raise ModelCallError("routing: lexical asks no model")
