"""Trigger runs: each query, N times, through the configured harness with the whole skill library installed.

Every other skill is a decoy, as in production. A run has no world and no tools beyond the
harness's own way of loading a skill, and asks one thing: which skill, if any, was loaded.

- minimal harness, `routing: lexical`: the trigger matcher decides; no model call, every run the same.
- minimal harness, `routing: model`: the catalog system prompt the runner builds, with load_skill the
  only tool, for at most MAX_TURNS turns. A load_skill call naming a skill ends the run (fired: that
  skill); an answer without one ends it (fired: None); a call to any other tool, or a load_skill that
  names no skill, is answered with a tool error and the loop goes on (a model that looks around first
  and then loads the skill has fired it). A model failure, or no decision within MAX_TURNS, is an error.
- a real harness (claude-code, codex, command): ratchet.harness.driver runs the query as a task over an
  empty world, isolated as every replay is; the first skill of the library it loaded anywhere in the run
  (trace.skills_fired: Claude Code's Skill call, Codex's read of a SKILL.md, a command's report) is what
  fired; a harness's bundled skill or a name the library lacks is not a fire. A run that
  ended in error (a timeout, a crash) without loading a skill is an error, never a negative. After
  the load, Ratchet answers the model's turns itself (ratchet.triggers.stop): the run ends there.

Seeds come from the query id and the run index (trigger_seed), so base and head runs of a check are
paired, and the gateway's cache makes a repeat of the same request free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from ratchet.agent.catalog import LOAD_SKILL, answer_load, catalog_system_prompt, load_skill_spec
from ratchet.agent.runner import tool_message
from ratchet.agent.trigger import match_skill
from ratchet.config.project import Project
from ratchet.core.chat import ChatModel, ChatRequest, Message, ToolCallRequest
from ratchet.core.errors import BudgetError, ModelCallError
from ratchet.core.ids import derived_seed
from ratchet.goldens.tasks import Task
from ratchet.goldens.triggers import TriggerQuery
from ratchet.skills.names import skill_key
from ratchet.skills.skill import Skill
from ratchet.triggers.models import QueryRuns, TriggerRun

__all__ = ["MAX_TURNS", "TriggersStopped", "run_queries", "run_query", "trigger_seed"]

MAX_TURNS = 4
"""Model turns a minimal `routing: model` run may take before it is an error: a decision is one turn,
a look at another tool first is one more."""


class TriggersStopped(BudgetError):
    """The budget stopped the runs: `done` holds every query whose runs all finished before it did."""

    def __init__(self, message: str, done: list[QueryRuns]) -> None:
        super().__init__(message)
        self.done = done


def trigger_seed(query_id: str, run: int) -> int:
    return derived_seed("trigger", query_id, run)


def run_queries(
    queries: Sequence[TriggerQuery],
    skills: Mapping[str, Skill],
    *,
    project: Project,
    model: ChatModel,
    repeats: int,
    purpose: str = "trigger",
) -> list[QueryRuns]:
    """Every query `repeats` times, in order. A BudgetError stops the runs: TriggersStopped carries those done."""
    done: list[QueryRuns] = []
    for query in queries:
        try:
            runs = [
                run_query(query, skills, project=project, model=model, run=n, purpose=purpose) for n in range(repeats)
            ]
        except BudgetError as exc:
            raise TriggersStopped(exc.one_line(), done) from None
        done.append(QueryRuns(query=query, runs=runs))
    return done


def run_query(
    query: TriggerQuery,
    skills: Mapping[str, Skill],
    *,
    project: Project,
    model: ChatModel,
    run: int,
    purpose: str = "trigger",
) -> TriggerRun:
    """One run of one query (BudgetError propagates: a run the budget refused is not a run)."""
    seed = trigger_seed(query.id, run)
    config = project.config
    if not config.harness.is_minimal:
        return _through_harness(query, skills, project=project, model=model, run=run, seed=seed, purpose=purpose)
    if config.routing == "lexical":
        return TriggerRun(query_id=query.id, run=run, seed=seed, fired=match_skill(query.prompt, skills), status="ok")
    return _catalog_loop(query, skills, project=project, model=model, run=run, seed=seed)


def _catalog_loop(
    query: TriggerQuery, skills: Mapping[str, Skill], *, project: Project, model: ChatModel, run: int, seed: int
) -> TriggerRun:
    frozen_time = project.config.clock
    messages = [
        Message(role="system", content=catalog_system_prompt(frozen_time, skills)),
        Message(role="user", content=query.prompt),
    ]
    tools = [load_skill_spec()]
    cost = 0.0
    hits: list[bool] = []

    def ended(fired: str | None, error: str | None = None) -> TriggerRun:
        return TriggerRun(
            query_id=query.id,
            run=run,
            seed=seed,
            fired=fired,
            status="ok" if error is None else "error",
            error=error,
            cost_usd=cost,
            cache_hit=bool(hits) and all(hits),
        )

    try:
        for turn in range(MAX_TURNS):
            request = ChatRequest(
                messages=messages, tools=tools, seed=seed, temperature=0, max_tokens=project.agent_max_tokens()
            )
            response = model.complete(request)
            cost += response.usage.usd
            hits.append(response.cache_hit)
            requested = response.message.tool_calls
            if not requested:
                return ended(None)
            # Ids as the runner writes them: the next request (and its cache key) does not carry made-up ids.
            calls = [
                ToolCallRequest(id=f"call_{turn}_{i}", name=c.name, arguments=c.arguments)
                for i, c in enumerate(requested)
            ]
            messages.append(Message(role="assistant", content=response.message.content, tool_calls=calls))
            for call in calls:
                if call.name == LOAD_SKILL:
                    loaded, content = answer_load(skills, call.arguments, frozen_time)
                    if loaded is not None:
                        return ended(loaded.name)
                    messages.append(Message(role="tool", tool_call_id=call.id, name=call.name, content=content))
                    continue
                error = f"no tool {call.name!r} in a trigger run; only {LOAD_SKILL} is offered"
                messages.append(tool_message(call.id, call.name, None, error))
    except ModelCallError as exc:
        return ended(None, f"model call failed: {exc.one_line()}")
    return ended(None, f"no skill loaded and no answer within {MAX_TURNS} turns")


def _empty_world(project: Project) -> Path:
    """An empty world folder in Ratchet's home: a trigger run offers no tools beyond skill loading."""
    folder = project.home / "triggers" / "empty-world"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _through_harness(
    query: TriggerQuery,
    skills: Mapping[str, Skill],
    *,
    project: Project,
    model: ChatModel,
    run: int,
    seed: int,
    purpose: str,
) -> TriggerRun:
    # Imported here: the harness runner brings the loopback endpoint (FastAPI, uvicorn); a minimal run needs none.
    from ratchet.harness.driver import WorldSource, adapter, run_through_harness
    from ratchet.triggers.stop import STOP_MODEL, StopsAtLoad

    settings = project.config.harness
    # Once the harness loaded a library skill, the run's question is answered: Ratchet answers the
    # model turns after it ($0, never cached), so a run costs the turns up to the load, not the skill's work.
    stopping = StopsAtLoad(model, adapter(settings.name), settings, skills)
    source = WorldSource(
        world_dir=_empty_world(project), workspaces_dir=None, workspace=None, frozen_time=project.config.clock
    )
    task = Task(id=query.id, prompt=query.prompt, skill=query.skill)
    trace = run_through_harness(
        task,
        skills,
        source,
        stopping,
        settings=settings,
        home=project.home,
        seed=seed,
        models={"agent": model.model_id},
        upstream=project.config.upstream,
        purpose=purpose,
    )
    # The first load of a skill in the library: a harness's own bundled skill, or a name the library
    # lacks (a failed load), is not a routing decision between the library's skills, and must not
    # hide the load of one after it.
    library = {skill_key(name) for name in skills}
    fired = next((ref.name for ref in trace.skills_fired if skill_key(ref.name) in library), None)
    # A skill loaded before the run failed was loaded: that is the decision. Without one, the failure
    # (a timeout, a crash) says nothing about routing: an error, never a negative.
    failed = trace.status == "error" and fired is None
    calls = [call for call in trace.model_calls if call.model != STOP_MODEL]  # the model's own calls
    return TriggerRun(
        query_id=query.id,
        run=run,
        seed=seed,
        fired=fired,
        status="error" if failed else "ok",
        error=(trace.error or "the harness run failed") if failed else None,
        cost_usd=sum(call.usage.usd for call in calls),
        cache_hit=bool(calls) and all(call.cache_hit for call in calls),
    )
