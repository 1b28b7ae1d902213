"""What the real binaries must never do: see a provider key, outlive their replay, or turn a hang or a
crash into anything but an error. Skipped without the pinned binaries, except under CI."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ratchet.config.harness import HarnessName, HarnessSettings
from ratchet.config.project import load_project
from ratchet.core.chat import ChatRequest, ChatResponse
from ratchet.data import demo_files
from ratchet.goldens.tasks import load_tasks, task_seed
from ratchet.goldens.trace import Trace
from ratchet.harness.driver import WorldSource, run_through_harness
from ratchet.harness.sandbox import processes_under
from ratchet.sim.agent import SimAgentModel
from ratchet.skills.sets import load_skills

SENTINEL = "sk-ratchet-sentinel-77c2e1"
ENV_OF = {"claude-code": "RATCHET_CLAUDE_BIN", "codex": "RATCHET_CODEX_BIN"}
HARNESSES: list[HarnessName] = ["claude-code", "codex"]


def _binary(harness: HarnessName) -> str:
    value = os.environ.get(ENV_OF[harness], "")
    if value and Path(value).is_file():
        return value
    if os.environ.get("CI"):
        pytest.fail(f"{ENV_OF[harness]} must point at the pinned binary in CI (scripts/install_harnesses.sh)")
    pytest.skip(f"{harness} is not installed")


class Recording:
    """The simulated agent, keeping every request it is asked (as JSON) and able to stall."""

    def __init__(self, stall: threading.Event | None = None) -> None:
        self.inner = SimAgentModel()
        self.requests: list[str] = []
        self.stall = stall

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(json.dumps(request.model_dump(mode="json")))
        if self.stall is not None:
            self.stall.wait(60)
        return self.inner.complete(request)


def _replay(tmp_path: Path, settings: HarnessSettings, model: Recording, task_id: str = "github-triage-01") -> Trace:
    with demo_files() as source:
        project = load_project(Path(source), home=tmp_path / "home")
        skills = load_skills(project.path("skills"))
        task = next(t for t in load_tasks(project.path("tasks")) if t.id == task_id)
        world = WorldSource(
            world_dir=project.path("world"),
            workspaces_dir=project.path("workspaces"),
            workspace=task.workspace,
            frozen_time=project.config.clock,
        )
        return run_through_harness(
            task,
            skills,
            world,
            model,
            settings=settings,
            home=project.home,
            seed=task_seed(task.id),
            models={"agent": model.model_id},
        )


def _gone(tmp_path: Path) -> None:
    scratch = tmp_path / "home" / "scratch"
    assert processes_under(tmp_path) == []
    assert not scratch.exists() or [p.name for p in scratch.iterdir()] == []


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_provider_key_in_our_environment_reaches_no_request(
    harness: HarnessName, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _binary(harness)
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CODEX_API_KEY"):
        monkeypatch.setenv(name, SENTINEL)
    model = Recording()
    trace = _replay(tmp_path, HarnessSettings(name=harness), model)
    assert trace.status == "ok", trace.error
    assert trace.fired_skill == "github-triage" and model.requests
    assert not any(SENTINEL in request for request in model.requests)
    assert not any(str(tmp_path) in request for request in model.requests), "scratch paths are rewritten"
    _gone(tmp_path)


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_harness_that_hangs_is_killed_at_its_timeout(harness: HarnessName, tmp_path: Path) -> None:
    _binary(harness)
    stall = threading.Event()
    try:
        trace = _replay(tmp_path, HarnessSettings(name=harness, timeout_s=4), Recording(stall))
    finally:
        stall.set()
    assert trace.status == "error" and "did not finish within 4 s" in (trace.error or "")
    _gone(tmp_path)


@pytest.mark.parametrize("harness", HARNESSES)
def test_a_harness_that_crashes_is_an_error(harness: HarnessName, tmp_path: Path) -> None:
    version = {"claude-code": "2.1.332 (Claude Code)", "codex": "codex-cli 0.169.0"}[harness]
    crash = tmp_path / "crashing-cli"
    crash.write_text(
        f'#!/bin/sh\nif [ "$1" = --version ]; then echo "{version}"; exit 0; fi\n'
        'echo "segmentation fault (simulated)" >&2\nexit 139\n',
        encoding="utf-8",
    )
    crash.chmod(0o755)
    trace = _replay(tmp_path, HarnessSettings(name=harness, bin=str(crash)), Recording())
    assert trace.status == "error"
    assert "139" in (trace.error or "") and "segmentation fault" in (trace.error or "")
    _gone(tmp_path)
