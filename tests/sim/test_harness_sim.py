"""The simulated agent behind real Claude Code and Codex requests does what it does for the minimal runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ratchet.agent.runner import run_task
from ratchet.core.chat import ChatRequest, Message, ToolSpec
from ratchet.core.jsonio import canonical_dumps
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import Trace
from ratchet.llm import anthropic_api, responses_api
from ratchet.sim.agent import SimAgentModel
from ratchet.sim.harness_agent import (
    CLAUDE_CODE_BUNDLED,
    catalog,
    harness_shape,
    harness_turn,
    result_value,
    user_prompt,
)
from ratchet.skills.sets import load_skills
from ratchet.skills.skill import Skill
from ratchet.world import load_world
from ratchet.world.state import World
from tests.helpers.harness_drive import SCRATCH, SHAPES, Drive, Shape, drive, fixture

DEMO = Path(__file__).resolve().parents[2] / "ratchet" / "data" / "demo"
CLOCK = "2026-10-14T16:00:00Z"
SKILLS = load_skills(DEMO / "skills")
TASKS = {t.id: t for t in load_tasks(DEMO / "tasks.yaml")}
NARROWED = "Review security advisories filed against the payments service and page the on-call engineer."


def world_for(task: Task) -> World:
    return load_world(DEMO / "world", workspaces_dir=DEMO / "workspaces", workspace=task.workspace, frozen_time=CLOCK)


def minimal(task: Task, skills: dict[str, Skill] = SKILLS) -> Trace:
    return run_task(
        task,
        skills,
        world_for(task),
        SimAgentModel(),
        seed=task_seed(task.id),
        frozen_time=CLOCK,
        models={"agent": "sim/agent-1"},
    )


def behind(shape: Shape, task: Task, skills: dict[str, Skill] = SKILLS, *, bundled: bool = True) -> Drive:
    return drive(shape, SimAgentModel(), task.prompt, skills, world_for(task), bundled=bundled)


def calls(records: Any) -> list[dict[str, Any]]:
    return [c.model_dump(mode="json") for c in records]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("task_id", sorted(TASKS))
def test_every_demo_task_behind_a_harness_makes_the_minimal_runners_calls_and_answer(
    shape: Shape, task_id: str
) -> None:
    task = TASKS[task_id]
    expected, got = minimal(task), behind(shape, task)
    assert got.loads == [s.name for s in expected.skills_fired]
    assert calls(got.tool_calls) == calls(expected.tool_calls)
    assert got.final_output == expected.final_output
    assert expected.final_output and (task.skill is None or expected.tool_calls)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_prompt_no_skill_takes_gets_the_canary_answer_and_no_loading_call(shape: Shape) -> None:
    task = Task(id="canary-harness", prompt="What is the boiling point of water at sea level?")
    expected, got = minimal(task), behind(shape, task)
    assert got.loads == [] and got.tool_calls == [] and len(got.requests) == 1
    assert got.final_output == expected.final_output
    assert got.final_output.endswith("Request: What is the boiling point of water at sea level?")


@pytest.mark.parametrize("shape", SHAPES)
def test_a_narrowed_description_that_no_longer_matches_gets_no_loading_call(shape: Shape) -> None:
    task = TASKS["github-triage-01"]
    narrowed = {**SKILLS, "github-triage": SKILLS["github-triage"].model_copy(update={"description": NARROWED})}
    assert behind(shape, task).loads == ["github-triage"]
    expected, got = minimal(task, narrowed), behind(shape, task, narrowed)
    assert got.loads == [] and got.tool_calls == [] and expected.skills_fired == []
    assert got.final_output == expected.final_output


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("bundled", [True, False])
def test_a_catalog_that_lists_the_harnesss_bundled_skills_still_routes_to_ours(shape: Shape, bundled: bool) -> None:
    # Scored with the bundled skills' words in the idf, this prompt routes to no skill (Claude Code)
    # or to openai-docs (Codex); left out, it routes as the minimal runner routes it.
    task = TASKS["github-triage-03"]
    got = behind(shape, task, bundled=bundled)
    assert got.loads == ["github-triage"]
    first = got.requests[0]
    listing = str(first["messages"][1] if shape != "codex" else first["input"][1])
    assert ("dataviz" in listing or "openai-docs" in listing) is bundled


def test_the_bundled_names_are_those_the_captured_claude_code_lists() -> None:
    text = fixture("claude_first")["messages"][1]["content"][0]["text"]
    section = text.split("available for use with the Skill tool:\n\n", 1)[1].split("\n\n", 1)[0]
    listed = {line[2:].partition(": ")[0] for line in section.split("\n") if line.startswith("- ")}
    assert listed - {"github-triage", "fx-expense-converter"} == CLAUDE_CODE_BUNDLED


def test_claude_codes_captured_first_request_gets_a_skill_call() -> None:
    request = anthropic_api.parse(fixture("claude_first")).request
    assert harness_shape(request) == "claude-code"
    assert user_prompt(request) == "Please triage issue #101 in acme/widgets."
    assert [e.name for e in catalog("claude-code", request)] == ["fx-expense-converter", "github-triage"]
    reply = SimAgentModel().complete(request).message
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_0_0", "Skill", {"skill": "github-triage"})
    ]


@pytest.mark.parametrize("name", ["claude_after_load_and_mcp", "claude_after_load_and_mcp_one_message_id"])
def test_claude_codes_captured_request_after_a_load_and_a_call_gets_the_skills_next_call(name: str) -> None:
    request = anthropic_api.parse(fixture(name)).request
    followed = harness_turn(request)
    assert followed is not None and followed.load is None
    assert [m.role for m in followed.request.messages] == ["system", "user", "assistant", "tool"]
    assert '<skill name="github-triage">\n# GitHub issue triage' in (followed.request.messages[0].content or "")
    reply = SimAgentModel().complete(request).message
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_2_0", "mcp__ratchet__github_add_label", {"repo": "acme/widgets", "number": 101, "label": "bug"})
    ]


def test_codexs_captured_first_request_gets_a_cat_of_the_skill_file() -> None:
    request = responses_api.parse(fixture("codex_first")).request
    assert harness_shape(request) == "codex"
    assert user_prompt(request) == "Please triage issue #101 in acme/widgets."
    # Codex's own skills (root r0, under CODEX_HOME) are not the project's
    assert [(e.name, e.path) for e in catalog("codex", request)] == [
        ("fx-expense-converter", f"{SCRATCH}/ws/.agents/skills/fx-expense-converter/SKILL.md"),
        ("github-triage", f"{SCRATCH}/ws/.agents/skills/github-triage/SKILL.md"),
    ]
    reply = SimAgentModel().complete(request).message
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_0_0", "exec_command", {"cmd": f"cat {SCRATCH}/ws/.agents/skills/github-triage/SKILL.md"})
    ]


def test_codexs_captured_request_after_a_cat_and_a_call_gets_the_skills_next_call_in_its_namespace() -> None:
    asked = responses_api.parse(fixture("codex_after_load_and_mcp"))
    response = SimAgentModel().complete(asked.request)
    assert [(c.id, c.name, c.arguments) for c in response.message.tool_calls] == [
        ("call_2_0", "mcp__ratchet__github_add_label", {"repo": "acme/widgets", "number": 101, "label": "bug"})
    ]
    from ratchet.llm.wire import Answer

    item = responses_api.render(Answer(response=response), asked)["output"][0]
    assert (item["namespace"], item["name"]) == ("mcp__ratchet", "github_add_label")


@pytest.mark.parametrize(("dialect", "name"), [(anthropic_api, "claude_mcp_error"), (responses_api, "codex_mcp_error")])
def test_a_failed_mcp_call_reads_as_the_error_object_the_minimal_runner_gives(dialect: Any, name: str) -> None:
    followed = harness_turn(dialect.parse(fixture(name)).request)
    assert followed is not None
    tools = [m.content for m in followed.request.messages if m.role == "tool"]
    assert tools[-1] == canonical_dumps({"error": "issue #999 not found in acme/widgets"}, indent=None)
    assert '"title":"[sync] App crashes' in (tools[0] or "")


@pytest.mark.parametrize(
    ("shape", "text", "value"),
    [
        ("claude-code", 'Error: {"error":"issue #999 not found"}', {"error": "issue #999 not found"}),
        (
            "claude-code",
            "Error: <tool_use_error>No such tool available</tool_use_error>",
            {"error": "<tool_use_error>No such tool available</tool_use_error>"},
        ),
        ("claude-code", '{"number":101}', {"number": 101}),
        ("codex", 'Wall time: 0 seconds\nOutput:\n{"number":101}', {"number": 101}),
        ("codex", 'Wall time: 0 seconds\nOutput:{"error":"no"}', {"error": "no"}),
        (
            "codex",
            "Wall time: 0 seconds\nOutput:\nMCP tool call requires approval, but approval policy is never",
            {"error": "MCP tool call requires approval, but approval policy is never"},
        ),
    ],
)
def test_result_forms_read_as_the_minimal_runner_reads_a_tool_message(shape: Any, text: str, value: Any) -> None:
    assert result_value(shape, text) == value


def test_the_minimal_runners_own_requests_are_not_a_harness_shape() -> None:
    request = ChatRequest(
        messages=[Message(role="system", content="x"), Message(role="user", content="hi")],
        tools=[ToolSpec(name="github_get_issue", description="[read] Read one issue.")],
    )
    assert harness_shape(request) is None and harness_turn(request) is None


def test_claude_codes_system_reminders_are_not_part_of_the_prompt() -> None:
    body = fixture("claude_first")
    body["messages"][0]["content"] = [
        {
            "type": "text",
            "text": "<system-reminder>\nAs you answer the user's questions, you can use this context.\n</system-reminder>",
        },
        {"type": "text", "text": "Please triage issue #101 in acme/widgets."},
    ]
    request = anthropic_api.parse(body).request
    assert user_prompt(request) == "Please triage issue #101 in acme/widgets."


@pytest.mark.parametrize("answer", ["Error: <tool_use_error>Unknown skill: github-triage</tool_use_error>"])
def test_a_failed_load_answers_without_a_skill_and_does_not_load_again(answer: str) -> None:
    body = fixture("claude_after_load_and_mcp")
    body["messages"] = [
        *body["messages"][:3],
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "is_error": True,
                    "content": answer.removeprefix("Error: "),
                }
            ],
        },
    ]
    reply = SimAgentModel().complete(anthropic_api.parse(body).request).message
    assert reply.tool_calls == []
    assert (reply.content or "").endswith("Request: Please triage issue #101 in acme/widgets.")


def test_a_cat_that_failed_answers_without_a_skill_and_does_not_load_again() -> None:
    body = fixture("codex_after_load_and_mcp")
    body["input"] = body["input"][:6]
    body["input"][5]["output"] = (
        "Chunk ID: 0\nWall time: 0 seconds\nProcess exited with code 1\nOriginal token count: 14\n"
        "Output:\ncat: SKILL.md: No such file or directory\n"
    )
    reply = SimAgentModel().complete(responses_api.parse(body).request).message
    assert reply.tool_calls == []
    assert (reply.content or "").endswith("Request: Please triage issue #101 in acme/widgets.")
