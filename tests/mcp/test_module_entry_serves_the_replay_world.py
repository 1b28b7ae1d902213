"""`python -m ratchet.mcp`: the server a harness adapter starts per replay, over exactly the replay's world.

Each test starts the real module as a subprocess and drives it with the official MCP client over
stdio, as Claude Code or Codex would; the world it must serve is the one replay_task loads for the
same task (same tools, same results, same volatile reads, same world digest).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from ratchet.config.project import project_from_text
from ratchet.data import demo_files
from ratchet.gate.replay import replay_task
from ratchet.goldens.tasks import Task, load_tasks, task_seed
from ratchet.goldens.trace import ToolCall, Trace, VolatileRead
from ratchet.mcp.record import CallRecorder, VolatileRecorder, read_record, read_volatile
from ratchet.mcp.server import MockedToolServer
from ratchet.sim.models import sim_model_for
from ratchet.skills.sets import load_skills
from ratchet.world import load_world
from ratchet.world.tools import offered_tools

REPO = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
RATCHET = str(Path(sys.executable).parent / "ratchet")
CLOCK = "2026-10-14T16:00:00Z"
INITIALIZE = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "0"},
            },
        }
    )
    + "\n"
)

Body = Callable[[ClientSession], Awaitable[Any]]


def fast(*args: str) -> list[str]:
    return [PYTHON, "-m", "ratchet.mcp", *args]


def drive(command: Sequence[str], body: Body, errlog: Path, cwd: Path | None = None) -> Any:
    """Start `command` as a stdio MCP server, initialize, run body, return what it returns."""
    params = StdioServerParameters(command=command[0], args=list(command[1:]), env={"RATCHET_UPSTREAM": "sim"}, cwd=cwd)

    async def main() -> Any:
        with errlog.open("a", encoding="utf-8") as log:
            async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return await body(session)

    # A worker thread, as in test_mcp_server.py: the main thread's event loop stays untouched.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, main).result()


def replay_calls(calls: Sequence[ToolCall]) -> Body:
    """A client that lists the tools, then makes `calls` in order, returning (tool names, answers)."""

    async def body(session: ClientSession) -> tuple[list[str], list[Any]]:
        listed = await session.list_tools()
        answers = []
        for call in calls:
            result = await session.call_tool(call.name, call.arguments)
            block = result.content[0]
            assert isinstance(block, types.TextContent)
            answers.append(json.loads(block.text))
        return [t.name for t in listed.tools], answers

    return body


def served_digest(errlog: Path) -> str:
    match = re.search(r"world ([0-9a-f]{64})", errlog.read_text(encoding="utf-8"))
    assert match is not None, errlog.read_text(encoding="utf-8")
    return match.group(1)


def golden_for(task: Task, frozen_time: str) -> Trace:
    """All replay_task reads of a golden: its seed and frozen clock."""
    return Trace(task_id=task.id, prompt=task.prompt, seed=task_seed(task.id), frozen_time=frozen_time)


def assert_serves_the_replay_world(
    replay: Trace,
    command: list[str],
    tmp_path: Path,
    tool_names: list[str],
) -> None:
    record, volatile, errlog = tmp_path / "calls.jsonl", tmp_path / "volatile.jsonl", tmp_path / "stderr.txt"
    assert replay.tool_calls and replay.volatile_reads  # the comparison below means something
    names, answers = drive(
        [*command, "--record", str(record), "--volatile", str(volatile)], replay_calls(replay.tool_calls), errlog
    )
    assert names == tool_names
    assert answers == [{"error": c.error} if c.error is not None else c.result for c in replay.tool_calls]
    assert read_record(record) == replay.tool_calls
    assert read_volatile(volatile) == replay.volatile_reads
    assert served_digest(errlog) == replay.world_digest


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    with demo_files() as source:
        shutil.copytree(source, root, copy_function=shutil.copyfile)
    return root


def test_it_serves_the_world_replay_task_loads_for_a_demo_task(demo: Path, tmp_path: Path) -> None:
    project = project_from_text(
        demo, (demo / "ratchet.yaml").read_text(encoding="utf-8"), source="ratchet.yaml", home=tmp_path / "home"
    )
    task = next(t for t in load_tasks(demo / "tasks.yaml") if t.workspace == "fx-berlin-offsite")
    replay = replay_task(
        task, golden_for(task, CLOCK), load_skills(demo / "skills"), sim_model_for("agent"), project=project, tree=demo
    )
    world = load_world(demo / "world", workspaces_dir=demo / "workspaces", workspace=task.workspace, frozen_time=CLOCK)
    command = fast(
        "--world",
        str(demo / "world"),
        "--workspaces",
        str(demo / "workspaces"),
        "--workspace",
        "fx-berlin-offsite",
        "--clock",
        CLOCK,
    )
    assert_serves_the_replay_world(replay, command, tmp_path, [t.name for t in offered_tools(world)])


def test_it_serves_a_benchmark_world_with_a_drift_overlay(tmp_path: Path) -> None:
    edit = json.loads((REPO / "bench/edits/fx-expense-converter.D1.1.json").read_text(encoding="utf-8"))
    overlay = tmp_path / "d1.yaml"
    overlay.write_text(json.dumps(edit["world_overlay"]), encoding="utf-8")  # JSON is YAML
    project = project_from_text(
        REPO, "paths: {world: bench/world, workspaces: bench/workspaces}\n", source="t", home=tmp_path / "home"
    )
    task = next(t for t in load_tasks(REPO / "bench/tasks.yaml") if t.id == "fx-expense-converter-09")
    replay = replay_task(
        task,
        golden_for(task, CLOCK),
        load_skills(REPO / "skills"),
        sim_model_for("agent"),
        project=project,
        tree=REPO,
        overlays=(overlay,),
    )
    assert ("fx.rates.2026-10-09.EUR", 1.1065) in [(r.key, r.value) for r in replay.volatile_reads]
    world = load_world(
        REPO / "bench/world", workspaces_dir=None, workspace=None, frozen_time=CLOCK, overlays=(overlay,)
    )
    command = fast(
        "--world",
        str(REPO / "bench/world"),
        "--workspaces",
        str(REPO / "bench/workspaces"),
        "--workspace",
        str(task.workspace),
        "--clock",
        CLOCK,
        "--overlay",
        str(overlay),
    )
    assert_serves_the_replay_world(replay, command, tmp_path, [t.name for t in offered_tools(world)])


def test_ratchet_mcp_takes_the_same_world_options_and_serves_the_same(demo: Path, tmp_path: Path) -> None:
    calls = [
        ToolCall(
            index=0, name="fx_get_rate", arguments={"base": "EUR", "quote": "USD", "date": "2026-10-09"}, effect="read"
        )
    ]
    outside = tmp_path / "elsewhere"  # no ratchet.yaml here: the three world options replace --project
    outside.mkdir()
    overlay = tmp_path / "drift.yaml"
    overlay.write_text("fx: {rates: {'2026-10-09': {EUR: 1.2}}}\n", encoding="utf-8")
    world_args = ["--world", str(demo / "world"), "--workspaces", str(demo / "workspaces"), "--clock", CLOCK]
    runs = {
        "fast": fast(*world_args, "--overlay", str(overlay)),
        "cli": [RATCHET, "mcp", *world_args, "--overlay", str(overlay)],
        "project": [RATCHET, "mcp", "--project", str(demo), "--overlay", str(overlay)],
    }
    seen = {}
    for name, command in runs.items():
        folder = tmp_path / name
        folder.mkdir()
        files = ["--record", str(folder / "calls.jsonl"), "--volatile", str(folder / "volatile.jsonl")]
        drive([*command, *files], replay_calls(calls), folder / "stderr.txt", cwd=outside)
        seen[name] = (
            (folder / "calls.jsonl").read_bytes(),
            (folder / "volatile.jsonl").read_bytes(),
            (folder / "stderr.txt").read_text(encoding="utf-8").split(", recording")[0],
        )
    assert seen["fast"] == seen["cli"] == seen["project"]
    assert read_volatile(tmp_path / "fast/volatile.jsonl") == [
        VolatileRead(key="fx.rates.2026-10-09.EUR", value=1.2, tool_call_index=0)
    ]


def test_the_fast_entry_imports_neither_typer_nor_the_cli(demo: Path) -> None:
    done = subprocess.run(
        [
            PYTHON,
            "-X",
            "importtime",
            "-m",
            "ratchet.mcp",
            "--world",
            str(demo / "world"),
            "--workspaces",
            str(demo / "workspaces"),
            "--clock",
            CLOCK,
        ],
        input=INITIALIZE,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "ratchet-mocked-tools"
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "ratchet.world.state" in imported  # the import log is the whole run's
    assert not {m for m in imported if m.split(".")[0] in {"typer", "litellm"} or m.startswith("ratchet.cli")}


def bad_input_cases(demo: Path, tmp_path: Path) -> list[tuple[list[str], str]]:
    world, workspaces = str(demo / "world"), str(demo / "workspaces")
    broken = tmp_path / "broken-world"
    broken.mkdir()
    (broken / "fx.yaml").write_text("fx: [1\n", encoding="utf-8")
    base = ["--world", world, "--workspaces", workspaces]
    return [
        (["--world", world, "--workspaces", workspaces], "error: the following arguments are required: --clock"),
        (
            [*base, "--clock", "2026-10-14"],
            "error: --clock must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not '2026-10-14'",
        ),
        ([*base, "--clock", CLOCK, "--colour"], "error: unrecognized arguments: --colour"),
        (
            [*base, "--clock", CLOCK, "--overlay", str(tmp_path / "nope.yaml")],
            f"error: {tmp_path / 'nope.yaml'}: file not found",
        ),
        (
            [*base, "--clock", CLOCK, "--workspace", "fx-mars"],
            f"error: {demo / 'workspaces/fx-mars'}: workspace 'fx-mars' not found",
        ),
        (["--world", str(broken), "--workspaces", workspaces, "--clock", CLOCK], f"error: {broken / 'fx.yaml'}:"),
        (
            [*base, "--clock", CLOCK, "--record", str(demo / "ratchet.yaml/calls.jsonl")],
            f"error: {demo / 'ratchet.yaml/calls.jsonl'}: cannot write",
        ),
        (
            [*base, "--clock", CLOCK, "--volatile", str(demo / "ratchet.yaml/v.jsonl")],
            f"error: {demo / 'ratchet.yaml/v.jsonl'}: cannot write",
        ),
    ]


def test_bad_input_is_one_line_exit_2_before_the_server_answers(demo: Path, tmp_path: Path) -> None:
    for args, expected in bad_input_cases(demo, tmp_path):
        done = subprocess.run(fast(*args), input=INITIALIZE, capture_output=True, text=True, timeout=60, check=False)
        assert (done.returncode, done.stdout, len(done.stderr.splitlines())) == (2, "", 1), (args, done.stderr)
        assert done.stderr.startswith(expected), (args, done.stderr)


def test_ratchet_mcp_reports_a_bad_clock_flag_the_same_way(demo: Path) -> None:
    done = subprocess.run(
        [RATCHET, "mcp", "--project", str(demo), "--clock", "noon"],
        input=INITIALIZE,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: --clock must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not 'noon'\n"


def test_volatile_reads_are_on_disk_before_the_answer_goes_back(demo: Path, tmp_path: Path) -> None:
    world = load_world(demo / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    server = MockedToolServer(
        world, CallRecorder(tmp_path / "calls.jsonl"), VolatileRecorder(tmp_path / "volatile.jsonl")
    )
    server.call("clock_now", {})
    server.call("fx_get_rate", {"base": "EUR", "quote": "GBP", "date": "2026-10-09"})
    written = read_volatile(tmp_path / "volatile.jsonl")  # still open: each call flushed its lines
    server.recorder.close()
    server.volatile.close()
    assert written == [
        VolatileRead(key="fx.rates.2026-10-09.EUR", value=1.0928, tool_call_index=1),
        VolatileRead(key="fx.rates.2026-10-09.GBP", value=1.2785, tool_call_index=1),
    ]
    assert [c.index for c in read_record(tmp_path / "calls.jsonl")] == [0, 1]


def test_a_workspace_without_a_workspaces_folder_is_named(demo: Path) -> None:
    done = subprocess.run(
        fast("--world", str(demo / "world"), "--clock", CLOCK, "--workspace", "fx-zurich"),
        input=INITIALIZE,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "error: task needs workspace 'fx-zurich' but no workspaces folder is configured\n"
