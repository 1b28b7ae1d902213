from __future__ import annotations

import pytest

from ratchet.core.chat import ChatResponse, Message, ToolCallRequest
from ratchet.core.clock import frozen_clock
from ratchet.core.errors import ModelCallError
from ratchet.goldens.trace import SIDE_EFFECTS
from ratchet.llm.fake import ScriptedModel
from tests.helpers.sim_run import OWN_TASKS, SKILLS, TASKS, run


@pytest.mark.parametrize("task", OWN_TASKS, ids=lambda t: t.id)
def test_every_task_runs_routes_and_is_deterministic(task) -> None:  # type: ignore[no-untyped-def]
    trace = run(task)
    assert trace.status == "ok", trace.error
    assert trace.fired_skill == task.skill
    assert trace.to_json() == run(task).to_json()
    assert trace.final_output
    assert trace.world_digest and trace.simulated and trace.models == {"agent": "sim/agent-1"}
    assert len(trace.model_calls) == len({c.index for c in trace.model_calls})
    assert trace.tokens_in == sum(c.tokens_in for c in trace.model_calls) > 0
    if task.skill == "github-triage" and not task.notes.startswith("The issue does not exist"):
        assert any(c.effect in SIDE_EFFECTS for c in trace.tool_calls)
    if task.skill == "fx-expense-converter" and task.id != "fx-expense-converter-10":
        assert trace.volatile_reads
    if task.is_canary:
        assert not trace.tool_calls and not trace.skills_fired


def test_skill_ref_carries_hashes() -> None:
    trace = run(TASKS["github-triage-01"])
    skill = SKILLS["github-triage"]
    assert trace.skills_fired[0].model_dump() == {
        "name": "github-triage",
        "content_hash": skill.content_hash,
        "substance_hash": skill.substance_hash,
    }


def test_missing_issue_makes_no_side_effect() -> None:
    trace = run(TASKS["github-triage-10"])
    assert [c.name for c in trace.tool_calls] == ["github_get_issue"]
    assert "not found" in trace.final_output


def test_model_error_ends_the_trace_with_status_error() -> None:
    model = ScriptedModel(responses=[ModelCallError("upstream 503")])
    trace = run(TASKS["canary-01"], model=model)
    assert trace.status == "error" and "upstream 503" in (trace.error or "")


def test_max_turns_is_an_error_and_tool_ids_are_rewritten() -> None:
    looping = ChatResponse(
        message=Message(role="assistant", tool_calls=[ToolCallRequest(id="rand-xyz", name="clock_now", arguments={})])
    )
    model = ScriptedModel(responses=[looping] * 3, echo=False)
    trace = run(TASKS["canary-01"], model=model, max_turns=2)
    assert trace.status == "error" and "2 turns" in (trace.error or "")
    second = model.requests[1]
    assert [m.tool_call_id for m in second.messages if m.role == "tool"] == ["call_0_0"]
    assert second.messages[-1].content == '{"date":"2026-10-14","now":"2026-10-14T16:00:00Z","weekday":"Wednesday"}'


def test_system_prompt_has_date_and_delimited_skill() -> None:
    model = ScriptedModel(responses=["done"])
    run(TASKS["github-triage-01"], model=model)
    system = model.requests[0].messages[0].content or ""
    assert "2026-10-14T16:00:00Z (Wednesday)" in system
    assert '<skill name="github-triage">\n# GitHub issue triage' in system and system.endswith("</skill>")


def test_simulated_latency_is_not_recorded_but_live_latency_is_measured_on_the_clock_given() -> None:
    ticks = iter([1.0, 1.0075])
    sim = ChatResponse(message=Message(role="assistant", content="hi"), latency_ms=7.5, simulated=True)
    live = ChatResponse(message=Message(role="assistant", content="hi"), latency_ms=99.0)
    assert run(TASKS["canary-01"], model=ScriptedModel(responses=[sim])).model_calls[0].latency_ms == 0.0
    traced = run(TASKS["canary-01"], model=ScriptedModel(responses=[live]), clock=lambda: next(ticks))
    assert traced.model_calls[0].latency_ms == 7.5
    assert (
        run(TASKS["canary-01"], model=ScriptedModel(responses=[live]), clock=frozen_clock).model_calls[0].latency_ms
        == 0.0
    )
