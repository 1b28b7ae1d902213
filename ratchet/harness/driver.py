"""One task through a real harness: the counterpart of ratchet/agent/runner.run_task.

Per replay (ADR 0016): a fresh scratch folder with the task's workspace files and the skill set
installed where the harness reads skills, a fresh HOME, an environment built from nothing, a
session on the shared loopback endpoint (a token of its own, the request rewrites that keep
scratch paths, the real date and per-run ids out of what the model and the cache key see), a
fresh MCP server (forked from the run's warm one, warm_mcp.py) over the same world the minimal
runner would load, a wall-clock timeout. Afterwards the Trace is built by trace_map and the folder and every process are gone.

A harness that cannot run at all (binary missing) is an InfraError before any replay. One that
crashes, hangs past its timeout, asks for a model that is not a tier or never calls the model
gives a trace with status `error`: the pair is `error`, never PASS.
"""

from __future__ import annotations

import atexit
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ratchet.config.harness import HarnessName, HarnessSettings, timeout_error
from ratchet.core.chat import ChatModel
from ratchet.core.errors import InfraError
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import HarnessRef, Trace
from ratchet.harness import warm_mcp
from ratchet.harness.base import MCP_PREFIX, Finished, Harness, ReplayInput
from ratchet.harness.binaries import binary_version, find_binary
from ratchet.harness.bwrap import BUBBLEWRAP, confine, sandbox_mode, setup_failure
from ratchet.harness.claude_code import ClaudeCode
from ratchet.harness.codex import Codex
from ratchet.harness.command import Command
from ratchet.harness.commands import (
    Collector,
    CountingModel,
    command_covers,
    command_trail,
    harness_probes,
    install_commands,
    say_missing,
)
from ratchet.harness.sandbox import (
    ProcessOutcome,
    base_env,
    install_skills,
    install_workspace,
    replay_dirs,
    run_process,
)
from ratchet.harness.trace_map import Mapped, map_calls, model_calls
from ratchet.llm.sessions import Exchange, SessionEndpoint, SessionSpec
from ratchet.mcp.options import ServeOptions
from ratchet.mcp.record import read_record, read_volatile
from ratchet.skills.skill import Skill
from ratchet.world.faults import FaultPlan
from ratchet.world.state import World, WorldFiles
from ratchet.world.tools import offered_tools

NOT_READY_RETRIES = 1
"""A harness that asked before its MCP server was up is started once more before the replay is an error."""
_ADAPTERS: dict[HarnessName, Harness] = {"claude-code": ClaudeCode(), "codex": Codex(), "command": Command()}


class WorldSource(BaseModel):
    """Where a replay's world comes from: what load_world is given, and `python -m ratchet.mcp` too."""

    model_config = ConfigDict(frozen=True)

    world_dir: Path
    workspaces_dir: Path | None
    workspace: str | None
    frozen_time: str
    overlays: tuple[Path, ...] = ()
    faults: FaultPlan | None = None
    """The seeded faults the run meets (docs/faults.md): the server is started armed with them."""

    def serve_options(self, record: Path, volatile: Path) -> ServeOptions:
        """What the run's warm server serves this replay: the world, clock, overlays, records and seeded faults."""
        return ServeOptions(
            world=self.world_dir.absolute(),
            workspaces=self.workspaces_dir.absolute() if self.workspaces_dir is not None else None,
            workspace=self.workspace,
            clock=self.frozen_time,
            overlays=tuple(overlay.absolute() for overlay in self.overlays),
            record=record.absolute(),
            volatile=volatile.absolute(),
            faults=self.faults if self.faults is not None and self.faults.faults else None,
        )

    def mcp_argv(self, record: Path, volatile: Path) -> list[str]:
        """The command a harness starts as Ratchet's MCP server: the pump to the run's warm server (a fork per
        replay, ratchet/harness/warm_mcp.py; `record`'s folder is the scratch root it is copied into), naming
        a one-time ticket for these options (registered host-side, never passed through the harness) or,
        where that cannot run, a fresh `python -m ratchet.mcp`."""
        if warm_mcp.available():
            return warm_mcp.pump_argv(record.parent, self.serve_options(record, volatile))
        argv = [sys.executable, "-m", "ratchet.mcp", "--world", str(self.world_dir), "--clock", self.frozen_time]
        if self.workspaces_dir is not None:
            argv += ["--workspaces", str(self.workspaces_dir)]
        if self.workspace is not None:
            argv += ["--workspace", self.workspace]
        for overlay in self.overlays:
            argv += ["--overlay", str(overlay)]
        if self.faults is not None and self.faults.faults:
            argv += ["--faults", self.faults.model_dump_json()]
        return [*argv, "--record", str(record), "--volatile", str(volatile)]


def adapter(name: HarnessName) -> Harness:
    if name not in _ADAPTERS:
        raise ValueError(f"no harness adapter for {name!r}")
    return _ADAPTERS[name]


@lru_cache(maxsize=8)
def _version(binary: Path) -> str:
    return binary_version(binary)


def resolve_binary(settings: HarnessSettings) -> tuple[Path | None, str]:
    """The harness binary and its version ("" for `command`); InfraError naming the npm command when absent."""
    if settings.name not in ("claude-code", "codex"):
        return None, ""
    binary = find_binary("claude-code" if settings.name == "claude-code" else "codex", settings.bin)
    return binary, _version(binary)


_endpoint_lock = threading.Lock()
_endpoint: SessionEndpoint | None = None


def shared_endpoint() -> SessionEndpoint:
    """The process's one loopback endpoint for harness replays, started on first use."""
    global _endpoint
    with _endpoint_lock:
        if _endpoint is None:
            endpoint = SessionEndpoint()
            endpoint.start()
            atexit.register(endpoint.stop)
            _endpoint = endpoint
        return _endpoint


def run_through_harness(
    task: Task,
    skills: Mapping[str, Skill],
    source: WorldSource,
    model: ChatModel,
    *,
    settings: HarnessSettings,
    home: Path,
    seed: int,
    models: dict[str, str],
    upstream: str = "sim",
    purpose: str = "replay",
    tier: str = "agent",
    world_files: WorldFiles | None = None,
) -> Trace:
    """Run one task once through the configured harness. Harness failures end the trace with
    status "error"; only an unusable setup (no binary, no scratch folder) raises. `world_files`:
    the world `source` names, already read for the check (for the digest and offered tools)."""
    harness = adapter(settings.name)
    binary, version = resolve_binary(settings)
    files = world_files if world_files is not None else WorldFiles(source.world_dir, overlays=source.overlays)
    world = files.world(
        workspaces_dir=source.workspaces_dir, workspace=source.workspace, frozen_time=source.frozen_time
    )
    trace = Trace(
        task_id=task.id,
        prompt=task.prompt,
        expected_skill=task.skill,
        upstream="live" if upstream == "live" else "sim",
        simulated=upstream != "live",
        models=dict(models),
        seed=seed,
        frozen_time=source.frozen_time,
        world_digest=world.digest(),
        harness=HarnessRef(name=settings.name, version=version, sandbox=sandbox_mode(settings)),
    )
    if source.faults is not None:
        source.faults.stamp(trace)
    offered = frozenset(tool.name for tool in offered_tools(world))
    attempts = 0
    while True:
        attempts += 1
        run = _attempt(
            harness,
            task,
            skills,
            source,
            model,
            settings=settings,
            home=home,
            seed=seed,
            tier=tier,
            binary=binary,
            offered=offered,
            world=world,
        )
        if not run.not_ready or run.exchanges or attempts > NOT_READY_RETRIES:
            break
    trace.model_calls = model_calls(run.exchanges, tier=tier, purpose=purpose, fallback_model=model.model_id)
    trace.simulated = trace.simulated or any(ex.response.simulated for ex in run.exchanges)
    trace.skills_fired = run.mapped.skills_fired
    trace.tool_calls = run.mapped.tool_calls
    trace.volatile_reads = run.mapped.volatile_reads
    trace.final_output = run.finished.final_output
    error = _replay_error(settings, run, attempts=attempts)
    if error is not None:
        trace.status = "error"
        trace.error = error
    return trace.with_totals()


@dataclass(frozen=True)
class _Run:
    """One start of the harness, read back (the scratch folder is gone by now). Never leaves this module."""

    outcome: ProcessOutcome
    finished: Finished
    exchanges: list[Exchange]
    mapped: Mapped
    refused: list[str]
    not_ready: int


def _attempt(
    harness: Harness,
    task: Task,
    skills: Mapping[str, Skill],
    source: WorldSource,
    model: ChatModel,
    *,
    settings: HarnessSettings,
    home: Path,
    seed: int,
    tier: str,
    binary: Path | None,
    offered: frozenset[str],
    world: World,
) -> _Run:
    with replay_dirs(home) as dirs:
        replay = ReplayInput(
            prompt=task.prompt,
            dirs=dirs,
            endpoint_url="",
            token="",
            mcp_argv=source.mcp_argv(dirs.record, dirs.volatile),
            frozen_time=source.frozen_time,
            settings=settings,
        )
        install_workspace(dirs, source.workspaces_dir, source.workspace)
        install_skills(skills, harness.skills_dir(replay))
        install_commands(dirs, world.commands, settings.commands_allow, clock=source.frozen_time)  # the only PATH
        if settings.shell_tools or harness.name == "command":
            say_missing(tuple(settings.commands_allow))  # once per process: an allowed command this host lacks
        # the shims' record, kept on the host: closed (thread and socket) however the replay ends, even when
        # its session cannot open; its runs stay readable
        with Collector(dirs) as collector:
            endpoint = shared_endpoint()
            spec = SessionSpec(
                tier=tier,
                models=[tier],
                rewrites=harness.rewrites(replay),
                restores=harness.restores(replay),
                seed=seed,
                required_tool_prefix=MCP_PREFIX if offered and harness.name != "command" else None,
            )
            counting = CountingModel(model, collector)  # where each shimmed command ran, between which model calls
            session = endpoint.open(spec, counting)
            try:
                replay = replay.model_copy(update={"endpoint_url": endpoint.base_url, "token": session.token})
                launch = harness.launch(replay, binary)
                for path, text in launch.files.items():
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_text(text, encoding="utf-8")
                outcome = run_process(
                    confine(launch.argv, replay, binary, covers=command_covers(dirs)),
                    cwd=dirs.workspace,
                    env=base_env(dirs, launch.env),
                    timeout_s=settings.timeout_s,
                    stdin=launch.stdin,
                    logs=dirs.root,
                )
            finally:
                endpoint.close(session)
        failed = setup_failure(outcome) if sandbox_mode(settings) == BUBBLEWRAP and not session.exchanges else None
        if failed is not None:  # bwrap stopped before the harness ran: the machine's fault, not the harness's
            raise InfraError(f"bubblewrap could not set up the replay's sandbox: {failed}")
        records = read_record(dirs.record) if dirs.record.is_file() else []
        volatile = read_volatile(dirs.volatile) if dirs.volatile.is_file() else []
        finished = harness.finished(replay, outcome)
        exchanges = list(session.exchanges)
        probes = harness_probes(harness.name, dirs)
        trail = command_trail(dirs, collector.runs, world.commands, world.data, counting, exchanges, probes=probes)
        mapped = map_calls(harness, replay, exchanges, records, volatile, skills, offered=offered, commands=trail)
    return _Run(outcome, finished, exchanges, mapped, list(session.refused), session.not_ready)


def _replay_error(settings: HarnessSettings, run: _Run, *, attempts: int) -> str | None:
    if run.outcome.timed_out:
        return timeout_error(settings)
    if run.refused:
        return f"{settings.name} asked for a model that is not a tier: {run.refused[0]}"
    if run.not_ready and not run.exchanges:
        return (
            f"{settings.name} asked the model before Ratchet's MCP server was connected "
            f"({attempts} start{'s' if attempts > 1 else ''}); nothing was checked"
        )
    if run.finished.error is not None:
        return run.finished.error
    if not run.exchanges:
        return f"{settings.name} made no model call"
    return None
