"""run_queries: which skill each run fired, under the lexical matcher and under `routing: model`."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.agent.catalog import LOAD_SKILL
from ratchet.core.errors import BudgetError, ModelCallError
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.triggers import TriggerQuery, load_trigger_queries
from ratchet.llm.fake import ScriptedModel
from ratchet.sim.models import SIMULATOR
from ratchet.skills.sets import load_skills
from ratchet.triggers.models import QueryRuns
from ratchet.triggers.run import MAX_TURNS, TriggersStopped, run_queries, trigger_seed
from tests.helpers.trigger_models import FiresWithProbability, answer, tool_call
from tests.triggers.conftest import BROADENED, NARROWED, project_at, write_project


def _run(root: Path, home: Path, model: object, repeats: int = 3) -> dict[str, QueryRuns]:
    project = project_at(root, home)
    queries = load_trigger_queries(project.path("tasks"), load_tasks(project.path("tasks")))
    done = run_queries(queries, load_skills(project.path("skills")), project=project, model=model, repeats=repeats)  # type: ignore[arg-type]
    return {runs.query.id: runs for runs in done}


def _rates(done: dict[str, QueryRuns]) -> dict[str, tuple[int, int, int]]:
    return {qid: (runs.fires, runs.ok, runs.errors) for qid, runs in done.items()}


BASE = {
    "github-triage:fire:1": (3, 3, 0),
    "github-triage:not:1": (0, 3, 0),
    "canary:not:1": (0, 3, 0),
    "task:fx-01": (3, 3, 0),
}


def test_lexical_routing_decides_without_a_model_and_every_run_alike(project_root: Path, tmp_path: Path) -> None:
    silent = ScriptedModel(echo=False)  # any call would raise
    done = _run(project_root, tmp_path / "home", silent)
    assert _rates(done) == BASE
    assert silent.requests == []
    runs = done["github-triage:fire:1"].runs
    assert [r.seed for r in runs] == [trigger_seed("github-triage:fire:1", n) for n in range(3)]
    assert {r.fired for r in runs} == {"github-triage"}


@pytest.mark.parametrize("routing", ["lexical", "model"])
def test_a_broadened_description_fires_on_a_should_not_fire_query(tmp_path: Path, routing: str) -> None:
    model = SIMULATOR.model("agent", noise=0.0)
    base = _run(write_project(tmp_path / "base", routing=routing), tmp_path / "home", model)
    head = _run(write_project(tmp_path / "head", triage=BROADENED, routing=routing), tmp_path / "home", model)
    assert _rates(base) == BASE
    assert _rates(head)["github-triage:not:1"] == (3, 3, 0)


@pytest.mark.parametrize("routing", ["lexical", "model"])
def test_a_narrowed_description_stops_firing_on_a_should_fire_query(tmp_path: Path, routing: str) -> None:
    model = SIMULATOR.model("agent", noise=0.0)
    head = _run(write_project(tmp_path / "head", triage=NARROWED, routing=routing), tmp_path / "home", model)
    assert _rates(head)["github-triage:fire:1"] == (0, 3, 0)
    assert {r.fired for r in head["github-triage:fire:1"].runs} == {None}


def _one(tmp_path: Path, model: ScriptedModel | FiresWithProbability, repeats: int = 1) -> QueryRuns:
    root = write_project(tmp_path / "proj", routing="model")
    project = project_at(root, tmp_path / "home")
    query = TriggerQuery(id="q", prompt="Label issue #3", skill="github-triage", should_fire=True, source="triggers")
    return run_queries([query], load_skills(root / "skills"), project=project, model=model, repeats=repeats)[0]


def test_a_model_that_calls_another_tool_first_and_then_loads_the_skill_fired_it(tmp_path: Path) -> None:
    model = ScriptedModel(
        responses=[tool_call("github_get_issue", number=3), tool_call(LOAD_SKILL, name="github-triage")]
    )
    runs = _one(tmp_path, model)
    assert (runs.fires, runs.ok, runs.errors) == (1, 1, 0)
    # The other tool was answered with an error, and only load_skill was offered.
    second = model.requests[1]
    assert [t.name for t in second.tools] == [LOAD_SKILL]
    assert "no tool 'github_get_issue'" in (second.messages[-1].content or "")


def test_a_load_of_an_unknown_skill_is_answered_and_the_run_goes_on(tmp_path: Path) -> None:
    model = ScriptedModel(responses=[tool_call(LOAD_SKILL, name="nope"), answer()])
    runs = _one(tmp_path, model)
    assert (runs.runs[0].fired, runs.runs[0].status, runs.fires, runs.ok) == (None, "ok", 0, 1)
    assert "unknown skill 'nope'" in (model.requests[1].messages[-1].content or "")


def test_a_model_failure_is_an_error_not_a_negative(tmp_path: Path) -> None:
    runs = _one(tmp_path, ScriptedModel(responses=[ModelCallError("upstream 503")]))
    assert (runs.fires, runs.ok, runs.errors) == (0, 0, 1)
    assert runs.runs[0].error == "model call failed: upstream 503"


def test_no_decision_within_the_turns_is_an_error(tmp_path: Path) -> None:
    model = ScriptedModel(responses=[tool_call("github_get_issue") for _ in range(MAX_TURNS)])
    runs = _one(tmp_path, model)
    assert (runs.runs[0].status, runs.ok) == ("error", 0)
    assert len(model.requests) == MAX_TURNS


def test_the_budget_stops_the_runs_and_keeps_the_queries_done(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    project = project_at(root, tmp_path / "home")
    queries = load_trigger_queries(project.path("tasks"), load_tasks(project.path("tasks")))
    model = ScriptedModel(responses=[answer(), answer(), BudgetError("run budget $0.01 reached")])
    with pytest.raises(TriggersStopped) as caught:
        run_queries(queries, load_skills(root / "skills"), project=project, model=model, repeats=2)
    assert [runs.query.id for runs in caught.value.done] == ["github-triage:fire:1"]
    assert caught.value.one_line() == "run budget $0.01 reached"


def test_a_model_that_fires_with_probability_p_is_reproducible_and_near_p(tmp_path: Path) -> None:
    first = _one(tmp_path, FiresWithProbability(0.5, "github-triage"), repeats=40)
    again = _one(tmp_path, FiresWithProbability(0.5, "github-triage"), repeats=40)
    assert [r.fired for r in first.runs] == [r.fired for r in again.runs]
    assert 10 <= first.fires <= 30 and first.ok == 40
