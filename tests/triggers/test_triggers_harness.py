"""Trigger runs through the real Claude Code and Codex binaries, with the simulator playing the model
behind them (SIMULATED): the load is found anywhere in the run, a timeout is an error and never a
miss, and every run has a scratch folder of its own.

The model behind the harness first looks around with one of the harness's own tools (Claude Code's
Glob, Codex's exec_command `ls`), then hands the turn to the simulator, which loads the skill the
prompt matches (Claude Code's Skill call, Codex's `cat` of the SKILL.md) or answers without one.
Skipped without the pinned binaries (scripts/install_harnesses.sh), except under CI.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from typer.testing import CliRunner

from ratchet.agent.catalog import LOAD_SKILL
from ratchet.cli import app
from ratchet.config.harness import HarnessName
from ratchet.core.chat import ChatRequest, ChatResponse
from ratchet.goldens.tasks import Task
from ratchet.goldens.triggers import TriggerQuery
from ratchet.harness.driver import WorldSource, adapter, run_through_harness
from ratchet.harness.sandbox import processes_under
from ratchet.llm.fake import ScriptedModel
from ratchet.sim.agent import SimAgentModel
from ratchet.skills.sets import load_skills
from ratchet.triggers.models import QueryRuns
from ratchet.triggers.run import run_queries
from ratchet.triggers.stop import STOP_ANSWER, STOP_MODEL, StopsAtLoad
from tests.helpers.trigger_models import answer, tool_call
from tests.triggers.conftest import SHOULD_FIRE, SHOULD_NOT_FIRE, project_at, write_project

ENV_OF = {"claude-code": "RATCHET_CLAUDE_BIN", "codex": "RATCHET_CODEX_BIN"}
LOOK: dict[str, tuple[str, dict[str, object]]] = {
    "claude-code": ("Glob", {"pattern": "**/*"}),
    "codex": ("exec_command", {"cmd": "ls -a"}),
}
LOAD = {"claude-code": "Skill", "codex": "exec_command"}
SKILLS_DIR = {"claude-code": ".claude/skills", "codex": ".agents/skills"}
STALL_TIMEOUT_S = 2.5
"""Long enough for the harness to start and reach its third model call (about 1 s here); each stalled run costs it."""
FIRE = TriggerQuery(id="t:fire", prompt=SHOULD_FIRE, skill="github-triage", should_fire=True, source="triggers")
NOT = TriggerQuery(id="t:not", prompt=SHOULD_NOT_FIRE, skill="github-triage", should_fire=False, source="triggers")


def _binary_or_skip(harness: str) -> None:
    value = os.environ.get(ENV_OF[harness], "")
    if value and Path(value).is_file():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{ENV_OF[harness]} must point at the pinned binary in CI (scripts/install_harnesses.sh)")
    pytest.skip(f"{harness} is not installed (scripts/install_harnesses.sh, then set {ENV_OF[harness]})")


def _harness_yaml(harness: str, timeout_s: float | None = None) -> str:
    # Claude Code is started with Skill alone unless the project allows a built-in: allow Glob to look with.
    text = f"harness:\n  name: {harness}\n" + ("  builtin_tools: [Glob]\n" if harness == "claude-code" else "")
    return text + (f"  timeout_s: {timeout_s}\n" if timeout_s is not None else "")


class LooksFirst:
    """The simulator behind the harness, after one look with a harness tool on the first turn.

    `stall`: hang on the request after the look ("look": before any load) or after the load
    ("load") until released, so the harness is killed at its timeout there. Each request notes
    which scratch folders exist at that moment, and whether this run's skills are installed in them.
    """

    def __init__(self, harness: str, home: Path, stall: Literal["look", "load"] | None = None) -> None:
        self.harness = harness
        self.home = home
        self.stall = stall
        self.release = threading.Event()
        self.inner = SimAgentModel()
        self.requests: list[ChatRequest] = []
        self.answered: dict[int, ChatResponse] = {}
        self.scratch: list[list[str]] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        index = len(self.requests)
        self.requests.append(request)
        scratch = self.home / "scratch"
        folders = sorted(p for p in scratch.iterdir() if p.is_dir()) if scratch.is_dir() else []
        installed = [
            p for p in folders if (p / "ws" / SKILLS_DIR[self.harness] / "github-triage" / "SKILL.md").is_file()
        ]
        assert installed == folders, "every replay folder holds its own installed skill library"
        self.scratch.append([p.name for p in folders])
        results = sum(1 for m in request.messages if m.role == "tool")
        if results == 0:
            name, arguments = LOOK[self.harness]
            response = tool_call(name, **arguments)
        else:
            if (self.stall == "look" and results == 1) or (self.stall == "load" and results == 2):
                self.release.wait(60)
                return self.inner.complete(request)  # released after the harness was killed: nobody reads it
            response = self.inner.complete(request)
        self.answered[index] = response
        return response

    def calls_made(self) -> list[str]:
        """The tool calls of the longest conversation the harness sent, then those of this model's answer to it."""
        longest = max(range(len(self.requests)), key=lambda i: len(self.requests[i].messages))
        last = self.requests[longest]
        asked = [call.name for m in last.messages if m.role == "assistant" for call in m.tool_calls]
        # A request that hung until the harness was killed has no answer.
        response = self.answered.get(longest)
        return asked + ([call.name for call in response.message.tool_calls] if response is not None else [])


class LoadsTwice:
    """Loads a skill the library does not have (the harness answers with an error), then github-triage."""

    def __init__(self, harness: str) -> None:
        self.harness = harness
        self.requests: list[ChatRequest] = []

    @property
    def model_id(self) -> str:
        return "fake/loads-twice"

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        results = sum(1 for m in request.messages if m.role == "tool")
        if results >= 2:
            return answer("Triaged.")
        name = "no-such-skill" if results == 0 else "github-triage"
        if self.harness == "claude-code":
            return tool_call("Skill", skill=name)
        return tool_call("exec_command", cmd=f"cat {SKILLS_DIR['codex']}/{name}/SKILL.md")


@dataclass
class Setup:
    harness: HarnessName
    root: Path


@pytest.fixture(scope="module", params=["claude-code", "codex"])
def setup(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Setup]:
    harness: HarnessName = request.param
    _binary_or_skip(harness)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RATCHET_UPSTREAM", "sim")
        yield Setup(harness, tmp_path_factory.mktemp(f"triggers-{harness}"))


def _run(
    setup: Setup, name: str, queries: list[TriggerQuery], *, repeats: int, stall: Literal["look", "load"] | None = None
) -> tuple[list[QueryRuns], LooksFirst]:
    timeout = STALL_TIMEOUT_S if stall is not None else None
    root = write_project(setup.root / name / "proj", extra=_harness_yaml(setup.harness, timeout))
    home = setup.root / name / "home"
    model = LooksFirst(setup.harness, home, stall)
    try:
        done = run_queries(
            queries, load_skills(root / "skills"), project=project_at(root, home), model=model, repeats=repeats
        )
    finally:
        model.release.set()
    return done, model


@pytest.fixture(scope="module")
def routed(setup: Setup) -> tuple[QueryRuns, QueryRuns, LooksFirst, LooksFirst]:
    (fire,), fire_model = _run(setup, "fire", [FIRE], repeats=2)
    (miss,), miss_model = _run(setup, "miss", [NOT], repeats=1)
    return fire, miss, fire_model, miss_model


def test_a_skill_loaded_after_another_tool_call_fired(
    setup: Setup, routed: tuple[QueryRuns, QueryRuns, LooksFirst, LooksFirst]
) -> None:
    fire, _, model, _ = routed
    assert [(r.fired, r.status) for r in fire.runs] == [("github-triage", "ok")] * 2
    assert (fire.fires, fire.ok, fire.errors) == (2, 2, 0)
    look = LOOK[setup.harness][0]
    assert model.calls_made()[:2] == [look, LOAD[setup.harness]], "the look came first and the harness ran it"
    looked = next(m for r in model.requests for m in r.messages if m.role == "tool")
    assert SKILLS_DIR[setup.harness].split("/")[0] in (looked.content or ""), "the look's real result came back"


def test_a_query_that_loads_nothing_did_not_fire(
    setup: Setup, routed: tuple[QueryRuns, QueryRuns, LooksFirst, LooksFirst]
) -> None:
    _, miss, _, model = routed
    assert [(r.fired, r.status, r.error) for r in miss.runs] == [(None, "ok", None)]
    assert (miss.fires, miss.ok, miss.errors) == (0, 1, 0)
    assert model.calls_made() == [LOOK[setup.harness][0]]


def test_each_run_has_a_scratch_folder_of_its_own(
    setup: Setup, routed: tuple[QueryRuns, QueryRuns, LooksFirst, LooksFirst]
) -> None:
    fire, _, model, _ = routed
    assert fire.runs[0].seed != fire.runs[1].seed
    # Runs are sequential: each request saw exactly one scratch folder, and the two repeats saw two.
    assert all(len(seen) == 1 for seen in model.scratch)
    assert len({seen[0] for seen in model.scratch}) == 2
    home = setup.root / "fire" / "home"
    assert [p for p in (home / "scratch").iterdir() if p.is_dir()] == []
    assert processes_under(setup.root) == []


def test_a_load_of_a_skill_the_library_lacks_does_not_hide_the_load_after_it(setup: Setup) -> None:
    root = write_project(setup.root / "twice" / "proj", extra=_harness_yaml(setup.harness))
    project = project_at(root, setup.root / "twice" / "home")
    model = LoadsTwice(setup.harness)
    (runs,) = run_queries([FIRE], load_skills(root / "skills"), project=project, model=model, repeats=1)
    assert [(r.fired, r.status) for r in runs.runs] == [("github-triage", "ok")]
    # Both loads ran; the turn after the library's skill was loaded was Ratchet's, not the model's.
    assert len(model.requests) == 2
    assert [m.role for m in model.requests[1].messages if m.role == "tool"] == ["tool"]


def test_a_timeout_before_any_load_is_an_error(setup: Setup) -> None:
    (before,), looked = _run(setup, "stall-look", [FIRE], repeats=1, stall="look")
    timed_out = f"{setup.harness} timed out: it did not finish within {STALL_TIMEOUT_S} s"
    assert [(r.fired, r.status) for r in before.runs] == [(None, "error")]
    assert (before.fires, before.ok, before.errors) == (0, 0, 1)
    assert (before.runs[0].error or "").startswith(timed_out)
    assert looked.calls_made() == [LOOK[setup.harness][0]], "killed after the look, before any load"
    assert processes_under(setup.root) == []


def test_the_model_is_asked_until_the_load_and_never_after_it(
    setup: Setup, routed: tuple[QueryRuns, QueryRuns, LooksFirst, LooksFirst]
) -> None:
    fire, miss, fire_model, miss_model = routed
    # Per fired run: the look, then the load; the turn after the load is Ratchet's stop answer, which
    # the harness takes as its final answer (the run ends ok, no error).
    assert [[m.role for m in r.messages].count("tool") for r in fire_model.requests] == [0, 1] * 2
    assert [r.error for r in fire.runs] == [None, None]
    # A run that loads nothing is the model's to end: look, then its answer.
    assert [[m.role for m in r.messages].count("tool") for r in miss_model.requests] == [0, 1]
    assert miss.runs[0].fired is None


def test_a_model_that_would_hang_after_the_load_is_never_asked(setup: Setup) -> None:
    # Before the stop, the harness sent the turn after the load to the model, which hung here until the
    # harness was killed at its timeout.
    (after,), loaded = _run(setup, "stall-load", [FIRE], repeats=1, stall="load")
    assert [(r.fired, r.status, r.error) for r in after.runs] == [("github-triage", "ok", None)]
    assert loaded.calls_made() == [LOOK[setup.harness][0], LOAD[setup.harness]]
    assert len(loaded.requests) == 2
    assert processes_under(setup.root) == []


def test_the_command_exits_3_naming_the_timeout_never_a_negative(setup: Setup) -> None:
    root = write_project(setup.root / "cli" / "proj", extra=_harness_yaml(setup.harness, 0.05))
    args = ["triggers", "--project", str(root), "--work", str(setup.root / "cli" / "home"), "--repeats", "1"]
    result = CliRunner().invoke(app, [*args, "--skill", "github-triage"])
    assert result.exit_code == 3, result.output
    lines = result.stdout.splitlines()
    assert any(line.startswith("github-triage:fire:1  github-triage  fire  0/0 -") for line in lines), result.stdout
    assert any(line.startswith("github-triage:not:1   github-triage  not   0/0 -") for line in lines), result.stdout
    assert result.stderr.splitlines()[-1].startswith(
        "error: 2 trigger run(s) of 2 query(ies) ended in error, first github-triage:fire:1: "
        f"{setup.harness} timed out: it did not finish within 0.05 s"
    )


def test_the_stop_answer_is_the_harness_final_answer_and_costs_nothing(setup: Setup) -> None:
    # Through each wire API (Claude Code: Anthropic Messages; Codex: Responses) the harness takes
    # Ratchet's answer as the end of its turn and prints it as its final answer.
    root = write_project(setup.root / "final" / "proj", extra=_harness_yaml(setup.harness))
    project = project_at(root, setup.root / "final" / "home")
    skills = load_skills(root / "skills")
    inner = LooksFirst(setup.harness, project.home)
    settings = project.config.harness
    world = project.home / "empty-world"
    world.mkdir(parents=True)
    trace = run_through_harness(
        Task(id=FIRE.id, prompt=FIRE.prompt, skill=FIRE.skill),
        skills,
        WorldSource(world_dir=world, workspaces_dir=None, workspace=None, frozen_time=project.config.clock),
        StopsAtLoad(inner, adapter(settings.name), settings, skills),
        settings=settings,
        home=project.home,
        seed=7,
        models={"agent": inner.model_id},
    )
    assert (trace.status, trace.error, trace.final_output) == ("ok", None, STOP_ANSWER)
    assert [ref.name for ref in trace.skills_fired] == ["github-triage"]
    assert [call.model for call in trace.model_calls][-1] == STOP_MODEL
    assert trace.model_calls[-1].cost_usd == 0.0 and not trace.model_calls[-1].cache_hit
    assert len(inner.requests) == len(trace.model_calls) - 1 == 2


def test_the_minimal_runner_asks_the_model_until_the_load_and_never_after_it(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", routing="model")
    model = ScriptedModel(responses=[tool_call("Glob", pattern="*"), tool_call(LOAD_SKILL, name="github-triage")])
    (runs,) = run_queries(
        [FIRE], load_skills(root / "skills"), project=project_at(root, tmp_path / "home"), model=model, repeats=1
    )
    assert [(r.fired, r.status) for r in runs.runs] == [("github-triage", "ok")]
    assert len(model.requests) == 2, "the look, then the load; nothing after it"
