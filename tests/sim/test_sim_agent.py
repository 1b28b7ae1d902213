"""The simulator's contract: cosmetic edits are invisible, substance edits and world drift are not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ratchet.core.errors import ConfigError
from ratchet.goldens.trace import Trace
from ratchet.sim.agent import SimAgentModel
from ratchet.sim.models import sim_model_for
from ratchet.skills.skill import Skill
from tests.helpers.sim_run import SKILLS, TASKS, run

USAGE_FIELDS = ("tokens_in", "tokens_out", "cost_usd")


def edited(name: str, edit: Callable[[str], str]) -> dict[str, Skill]:
    skills = dict(SKILLS)
    new_body = edit(skills[name].body)
    assert new_body != skills[name].body, "the edit did not apply"
    skills[name] = skills[name].model_copy(update={"body": new_body})
    return skills


def without_usage(trace: Trace) -> dict[str, Any]:
    """A trace minus token counts and cost, the only fields that follow the prompt's length."""
    data: dict[str, Any] = json.loads(trace.to_json())
    for key in USAGE_FIELDS:
        data.pop(key)
    for call in data["model_calls"]:
        for key in USAGE_FIELDS:
            call.pop(key, None)
    return data


def final_fields(trace: Trace) -> list[str]:
    """The `field: value` lines, below the lead-in paragraph and the heading line."""
    return trace.final_output.split("\n\n", 1)[1].splitlines()[1:]


WHITESPACE_AND_COMMENTS = [
    lambda b: b.replace("\n## Steps\n", "\n\n\n## Steps   \n\n"),
    lambda b: b.replace("## Output\n", "## Output\n<!-- keep these field names stable: finance parses them -->\n"),
    lambda b: b.replace("1. Read the", "<!-- reviewed 2026-10 -->\n1. Read the") + "\n\n",
]
PROSE_REWORDINGS = [
    lambda b: b.replace("Read the issue:", "First, fetch the issue:").replace(
        "Read the report:", "First, open the report:"
    ),
    lambda b: b.replace("Reply with one line per field", "Answer with a single line for each field"),
]


@pytest.mark.parametrize(
    "task_id", ["github-triage-01", "github-triage-09", "fx-expense-converter-04", "fx-expense-converter-09"]
)
@pytest.mark.parametrize("edit", WHITESPACE_AND_COMMENTS)
def test_whitespace_and_comment_edits_leave_the_trace_byte_identical(task_id: str, edit: Callable[[str], str]) -> None:
    task = TASKS[task_id]
    assert task.skill is not None
    before = run(task).model_copy(update={"skills_fired": []})
    after = run(task, edited(task.skill, edit)).model_copy(update={"skills_fired": []})
    assert after.to_json() == before.to_json()


@pytest.mark.parametrize("task_id", ["github-triage-01", "fx-expense-converter-09"])
@pytest.mark.parametrize("edit", PROSE_REWORDINGS)
def test_prose_rewording_changes_nothing_but_prompt_length(task_id: str, edit: Callable[[str], str]) -> None:
    task = TASKS[task_id]
    assert task.skill is not None
    before, after = run(task), run(task, edited(task.skill, edit))
    before_data, after_data = without_usage(before), without_usage(after)
    before_data.pop("skills_fired")
    after_data.pop("skills_fired")
    assert after_data == before_data


def test_r3_changed_argument_changes_the_tool_call() -> None:
    skills = edited("github-triage", lambda b: b.replace('"sync": "raj-patel"', '"sync": "dana-kim"'))
    before, after = run(TASKS["github-triage-01"]), run(TASKS["github-triage-01"], skills)
    assign = [c.arguments["assignee"] for t in (before, after) for c in t.tool_calls if c.name == "github_assign"]
    assert assign == ["raj-patel", "dana-kim"]


def test_r2_dropped_field_changes_the_output() -> None:
    skills = edited("fx-expense-converter", lambda b: b.replace("- `total_usd`: `money($total)`\n", ""))
    before, after = run(TASKS["fx-expense-converter-01"]), run(TASKS["fx-expense-converter-01"], skills)
    assert "total_usd: 1900.55" in before.final_output and "total_usd" not in after.final_output
    assert [c.model_dump() for c in after.tool_calls] == [c.model_dump() for c in before.tool_calls]


def test_r1_changed_rule_changes_the_result() -> None:
    skills = edited("fx-expense-converter", lambda b: b.replace("weekday($row.date) >= 5", "weekday($row.date) >= 6"))
    before, after = run(TASKS["fx-expense-converter-09"]), run(TASKS["fx-expense-converter-09"], skills)
    assert before.final_output != after.final_output
    saturday = [c for c in after.tool_calls if c.arguments.get("date") == "2026-10-10"]
    assert saturday and saturday[0].error  # the broken rule asks for a rate that was never published


def test_r4_added_side_effect_appears_as_a_new_call() -> None:
    step = '8. Send the result to finance: `email_send(to="finance@example.com", subject="Converted expenses", body=fmt("{} USD", money($total)))`.\n'
    skills = edited("fx-expense-converter", lambda b: b.replace("\n## Output", f"{step}\n## Output"))
    before, after = run(TASKS["fx-expense-converter-01"]), run(TASKS["fx-expense-converter-01"], skills)
    new = [c for c in after.tool_calls if c.name not in {b.name for b in before.tool_calls}]
    assert [(c.name, c.effect, c.arguments["body"]) for c in new] == [("email_send", "send", "1900.55 USD")]


def test_d1_moved_volatile_fact_changes_what_is_read(tmp_path: Path) -> None:
    overlay = tmp_path / "drift.yaml"
    overlay.write_text('fx:\n  rates:\n    "2026-10-09": {EUR: 1.2}\n')
    task = TASKS["fx-expense-converter-09"]
    before, after = run(task), run(task, overlays=[overlay])
    assert [c.arguments for c in before.tool_calls] == [c.arguments for c in after.tool_calls]
    assert {r.value for r in after.volatile_reads} == {1.2} != {r.value for r in before.volatile_reads}
    assert "total_usd: 214.32" in after.final_output and after.final_output != before.final_output


def test_canary_gets_a_plain_deterministic_answer() -> None:
    trace = run(TASKS["canary-02"])
    assert not trace.tool_calls and len(trace.model_calls) == 1
    assert trace.final_output.startswith("No skill applies to this request")
    assert trace.to_json() == run(TASKS["canary-02"]).to_json()


def test_noise_rewords_or_adds_a_closing_line_without_changing_fields() -> None:
    task = TASKS["fx-expense-converter-09"]
    quiet = run(task)
    assert final_fields(quiet)[0] == "file: weekend.csv"
    kinds = set()
    for seed in range(16):
        noisy = run(task, model=SimAgentModel(noise=1.0), seed=seed)
        assert noisy.final_output != run(task, seed=seed).final_output
        assert [c.model_dump() for c in noisy.tool_calls] == [c.model_dump() for c in quiet.tool_calls]
        body = final_fields(noisy)
        assert body[: len(final_fields(quiet))] == final_fields(quiet)  # the same fields, then perhaps an aside
        added = [line for line in noisy.final_output.splitlines() if line and line not in quiet.final_output]
        kinds.add("aside" if added and added[-1] == noisy.final_output.splitlines()[-1] else "reworded")
        assert noisy.to_json() == run(task, model=SimAgentModel(noise=1.0), seed=seed).to_json()
    assert kinds == {"aside", "reworded"}
    varied = {
        run(task, model=SimAgentModel(noise=0.5), seed=seed).final_output != quiet.final_output for seed in range(12)
    }
    assert varied == {True, False}


def test_a_noisy_simulator_is_another_model_id() -> None:
    assert SimAgentModel().model_id == "sim/agent-1"
    assert SimAgentModel(noise=0.2).model_id == "sim/agent-1+noise0.2"


def test_sim_model_for_tiers() -> None:
    assert sim_model_for("agent").model_id == "sim/agent-1"
    with pytest.raises(ConfigError):
        sim_model_for("no-such-tier")


def test_sim_responses_are_labeled_simulated() -> None:
    trace = run(TASKS["github-triage-03"])
    assert trace.simulated and all(c.model == "sim/agent-1" for c in trace.model_calls)
    assert [c.finish_reason for c in trace.model_calls][-1] == "stop"
