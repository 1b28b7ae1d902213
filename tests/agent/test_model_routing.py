"""routing: model in the MinimalRunner: the catalog in the system prompt, the load_skill tool, what fires.

And routing: lexical pinned: the requests it sends and the traces it writes are today's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ratchet.agent.catalog import (
    CATALOG_HEADER,
    LOAD_SKILL,
    load_skill_spec,
    render_catalog,
    skill_block,
)
from ratchet.agent.prompt import system_prompt
from ratchet.agent.runner import run_task
from ratchet.config.project import Routing
from ratchet.core.chat import ChatModel, ChatResponse, Message, ToolCallRequest
from ratchet.goldens.tasks import Task, task_seed
from ratchet.goldens.trace import SkillRef, Trace, load_goldens
from ratchet.llm.fake import ScriptedModel
from ratchet.sim.models import sim_model_for
from ratchet.skills.skill import Skill, parse_skill_text
from ratchet.world import load_world
from ratchet.world.tools import tool_specs
from tests.helpers.sim_run import CLOCK, OWN_TASKS, REPO, SKILLS, TASKS

WORLD = REPO / "bench/world"
WORKSPACES = REPO / "bench/workspaces"


def run(
    task: Task, routing: Routing, *, model: ChatModel | None = None, skills: dict[str, Skill] | None = None
) -> Trace:
    world = load_world(WORLD, workspaces_dir=WORKSPACES, workspace=task.workspace, frozen_time=CLOCK)
    return run_task(
        task,
        SKILLS if skills is None else skills,
        world,
        model or sim_model_for("agent"),
        seed=task_seed(task.id),
        frozen_time=CLOCK,
        models={"agent": "sim/agent-1"},
        routing=routing,
    )


def load(name: object, call_id: str = "x") -> ChatResponse:
    call = ToolCallRequest(id=call_id, name=LOAD_SKILL, arguments={"name": name})
    return ChatResponse(message=Message(role="assistant", tool_calls=[call]), finish_reason="tool_calls")


def skill(name: str, description: str, extra: str = "") -> Skill:
    text = f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nSay hello.\n"
    return parse_skill_text(text, folder=Path("skills") / name, source=f"{name}/SKILL.md")


# -- routing: lexical is today's runner ----------------------------------------------------------


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_lexical_routing_sends_todays_requests_and_offers_no_load_skill(task: Task) -> None:
    model = ScriptedModel(responses=["done"])
    run(task, "lexical", model=model)
    fired = SKILLS.get(task.skill) if task.skill is not None else None
    world = load_world(WORLD, workspaces_dir=WORKSPACES, workspace=task.workspace, frozen_time=CLOCK)
    request = model.requests[0]
    assert request.messages == [
        Message(role="system", content=system_prompt(CLOCK, fired)),
        Message(role="user", content=task.prompt),
    ]
    assert request.tools == tool_specs(world)


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_lexical_routing_replays_the_shipped_goldens(task: Task) -> None:
    """The shipped goldens were recorded before routing existed: routing, calls, output and every turn's
    token counts (the size of each request) are unchanged. Only the gateway's own fields differ here."""
    golden = load_goldens(REPO / "goldens")[task.id]
    trace = run(task, "lexical")
    assert trace.skills_fired == golden.skills_fired
    assert trace.tool_calls == golden.tool_calls
    assert trace.final_output == golden.final_output
    assert [(c.tokens_in, c.tokens_out, c.finish_reason) for c in trace.model_calls] == [
        (c.tokens_in, c.tokens_out, c.finish_reason) for c in golden.model_calls
    ]


# -- routing: model: what the model is shown -----------------------------------------------------


def test_the_catalog_lists_every_model_invocable_skill_sorted_by_name_one_line_each() -> None:
    skills = {
        "zeta": skill("zeta", "Last by name."),
        "alpha": skill("alpha", "First by name,\n  over two lines."),
        "hidden": skill("hidden", "Only a person may start this.", "disable-model-invocation: true\n"),
    }
    assert render_catalog(skills) == (
        f"{CATALOG_HEADER}\n<available_skills>\n- alpha: First by name, over two lines.\n- zeta: Last by name.\n</available_skills>"
    )


def test_model_routing_shows_the_catalog_and_offers_load_skill_after_the_worlds_tools() -> None:
    model = ScriptedModel(responses=["done"])
    task = TASKS["github-triage-01"]
    trace = run(task, "model", model=model)
    request = model.requests[0]
    world = load_world(WORLD, workspaces_dir=WORKSPACES, workspace=None, frozen_time=CLOCK)
    assert request.messages[0].content == system_prompt(CLOCK, None) + "\n\n" + render_catalog(SKILLS)
    assert '<skill name="' not in (request.messages[0].content or "")
    assert request.tools == [*tool_specs(world), load_skill_spec()]
    assert load_skill_spec().model_dump() == {
        "name": "load_skill",
        "description": "[read] Load a skill from the catalog in the system prompt by its name. The result holds "
        "the skill's instructions: follow them.",
        "parameters": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "The skill's name, as the catalog lists it."}},
            "required": ["name"],
        },
    }
    assert trace.skills_fired == [] and trace.final_output == "done"


def test_loading_a_skill_returns_its_block_and_records_it_as_fired() -> None:
    model = ScriptedModel(responses=[load("github-triage"), "done"])
    trace = run(TASKS["github-triage-01"], "model", model=model)
    answer = model.requests[1].messages[-1]
    target = SKILLS["github-triage"]
    assert (answer.role, answer.name, answer.tool_call_id) == ("tool", "load_skill", "call_0_0")
    assert answer.content == skill_block(target, CLOCK)
    assert system_prompt(CLOCK, target).endswith("\n" + skill_block(target, CLOCK)), "the lexical path's block"
    assert trace.skills_fired == [
        SkillRef(name="github-triage", content_hash=target.content_hash, substance_hash=target.substance_hash)
    ]
    assert trace.tool_calls == [], "loading a skill routes the task; it is not a call on the world"
    assert trace.status == "ok" and len(trace.model_calls) == 2


def test_loading_the_same_skill_twice_fires_it_once() -> None:
    model = ScriptedModel(responses=[load("github-triage"), load("github-triage"), "done"])
    assert [s.name for s in run(TASKS["github-triage-01"], "model", model=model).skills_fired] == ["github-triage"]


@pytest.mark.parametrize(
    ("name", "error"),
    [
        ("nope", "unknown skill 'nope'; the catalog lists: "),
        (7, "load_skill needs `name`, a skill name from the catalog; the catalog lists: "),
    ],
)
def test_an_unknown_skill_is_a_tool_error_and_nothing_fires(name: object, error: str) -> None:
    model = ScriptedModel(responses=[load(name), "done"])
    trace = run(TASKS["github-triage-01"], "model", model=model)
    answer = json.loads(model.requests[1].messages[-1].content or "")
    assert answer == {"error": error + ", ".join(sorted(SKILLS))}
    assert trace.skills_fired == [] and trace.status == "ok"


def test_a_skill_hidden_from_the_model_cannot_be_loaded() -> None:
    skills = {
        "hidden": skill("hidden", "Only a person may start this.", "disable-model-invocation: true\n"),
        "open": skill("open", "Anyone may load this."),
    }
    model = ScriptedModel(responses=[load("hidden"), "done"])
    trace = run(TASKS["canary-01"], "model", model=model, skills=skills)
    assert json.loads(model.requests[1].messages[-1].content or "") == {
        "error": "unknown skill 'hidden'; the catalog lists: open"
    }
    assert trace.skills_fired == []


def test_with_lexical_routing_load_skill_is_just_an_unknown_tool() -> None:
    model = ScriptedModel(responses=[load("github-triage"), "done"])
    trace = run(TASKS["canary-01"], "lexical", model=model)
    assert trace.skills_fired == [] and [c.name for c in trace.tool_calls] == ["load_skill"]
    assert trace.tool_calls[0].error is not None and trace.tool_calls[0].error.startswith("unknown tool 'load_skill'")


# -- routing: model on the simulator: a catalog reader --------------------------------------------


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_the_simulator_loads_the_skill_the_catalog_offers_and_follows_it(task: Task) -> None:
    lexical, model = run(task, "lexical"), run(task, "model")
    assert model.status == "ok", model.error
    assert model.skills_fired == lexical.skills_fired
    assert model.tool_calls == lexical.tool_calls
    assert model.final_output == lexical.final_output
    loads = 1 if task.skill is not None else 0
    assert len(model.model_calls) == len(lexical.model_calls) + loads
    assert model.to_json() == run(task, "model").to_json(), "deterministic"


def test_the_simulator_sees_only_the_request_first_the_catalog_then_the_loaded_block() -> None:
    sim = sim_model_for("agent")
    model = ScriptedModel(sim.model_id, [sim.complete] * 8, echo=False)
    trace = run(TASKS["github-triage-01"], "model", model=model)
    first, second = model.requests[0], model.requests[1]
    assert '<skill name="' not in (first.messages[0].content or "")
    asked = second.messages[2]
    assert [(c.name, c.arguments) for c in asked.tool_calls] == [("load_skill", {"name": "github-triage"})]
    assert second.messages[3].content == skill_block(SKILLS["github-triage"], CLOCK)
    assert trace.tool_calls[0].name == "github_get_issue"
