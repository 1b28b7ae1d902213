"""`ratchet mcp` driven by the official MCP client over stdio, as a harness would drive it.

Each test launches the installed `ratchet` entry point as a subprocess (one server = one replay)
and talks to it with mcp.client.stdio + ClientSession: no in-process shortcut.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from pydantic import Field

from ratchet.goldens.trace import StateChange
from ratchet.mcp.annotations import KNOWN_IDEMPOTENT
from ratchet.mcp.record import CallRecorder, read_record
from ratchet.mcp.server import MockedToolServer, call_result
from ratchet.world import load_world
from ratchet.world.tools import ALL_TOOLS, call_tool, offered_tools

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"
RATCHET = str(Path(sys.executable).parent / "ratchet")


def docs_example() -> str:
    match = re.search(r"```yaml\n(.*?)```", (REPO / "docs/tools.md").read_text(encoding="utf-8"), re.S)
    assert match is not None
    return match.group(1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The demo's world and workspaces, plus the docs' CRM tools under world/tools/."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "ratchet/data/demo/world", root / "world")
    shutil.copytree(REPO / "ratchet/data/demo/workspaces", root / "workspaces")
    (root / "world/tools").mkdir()
    (root / "world/tools/crm.yaml").write_text(docs_example(), encoding="utf-8")
    return root


class MalformedCall(types.Request[dict[str, Any], Literal["tools/call"]]):
    """A tools/call whose arguments are a string, which ClientSession.call_tool would never send."""

    method: Literal["tools/call"] = "tools/call"
    params: dict[str, Any] = Field(default_factory=lambda: {"name": "clock_now", "arguments": "now"})


Session = Callable[[ClientSession], Awaitable[Any]]


def run_server(project: Path, body: Session, *extra: str) -> Any:
    """Start `ratchet mcp --project project ...extra`, run body against it, return what body returns."""
    errlog = (project.parent / "server-stderr.txt").open("a", encoding="utf-8")
    params = StdioServerParameters(
        command=RATCHET,
        args=["mcp", "--project", str(project), *extra],
        env={"RATCHET_HOME": str(project.parent / "home"), "RATCHET_UPSTREAM": "sim"},
    )

    async def main() -> Any:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await body(session)

    # The client's loop runs in a worker thread: asyncio.run on the main thread would replace the loop
    # litellm's sync logging left there in earlier tests (asyncio.get_event_loop), and the dropped,
    # unclosed loop then fails a later test under -W error as an unraisable ResourceWarning.
    try:
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(anyio.run, main).result()
    finally:
        errlog.close()


def result_json(result: types.CallToolResult) -> Any:
    block = result.content[0]
    assert isinstance(block, types.TextContent)
    return json.loads(block.text)


def test_tools_are_listed_with_their_schemas_and_annotations(project: Path) -> None:
    async def body(session: ClientSession) -> types.ListToolsResult:
        return await session.list_tools()

    listed = run_server(project, body)
    world = load_world(project / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert [t.name for t in listed.tools] == [t.name for t in offered_tools(world)]
    by_name = {t.name: t for t in listed.tools}
    shipped = ALL_TOOLS["github_get_issue"].spec()
    assert (by_name["github_get_issue"].description, by_name["github_get_issue"].input_schema) == (
        shipped.description,
        shipped.parameters,
    )
    hints = {
        name: by_name[name].annotations.model_dump(by_alias=True, exclude_none=True)
        for name in ("github_get_issue", "github_add_label", "github_comment", "crm_log_call", "crm_find_contact")
    }
    assert hints == {
        "github_get_issue": {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "github_add_label": {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": True,
            "openWorldHint": False,
        },
        "github_comment": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": False,
            "openWorldHint": False,
        },
        "crm_log_call": {
            "readOnlyHint": False,
            "destructiveHint": True,
            "idempotentHint": False,
            "openWorldHint": False,
        },
        "crm_find_contact": {
            "readOnlyHint": True,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    }
    assert by_name["github_comment"].meta == {"ratchet/effect": "send"}
    assert by_name["crm_find_contact"].input_schema["additionalProperties"] is False


def test_a_write_is_recorded_with_its_effect_and_a_later_read_sees_it(project: Path, tmp_path: Path) -> None:
    record = tmp_path / "calls.jsonl"

    async def body(session: ClientSession) -> tuple[Any, Any]:
        added = await session.call_tool("github_add_label", {"repo": "acme/widgets", "number": 101, "label": "bug"})
        read = await session.call_tool("github_get_issue", {"repo": "acme/widgets", "number": 101})
        assert not added.is_error and not read.is_error
        return result_json(added), result_json(read)

    added, read = run_server(project, body, "--record", str(record))
    assert added == {"number": 101, "labels": ["bug"]}
    assert read["labels"] == ["bug"]
    calls = read_record(record)
    assert [(c.index, c.name, c.effect) for c in calls] == [
        (0, "github_add_label", "write"),
        (1, "github_get_issue", "read"),
    ]
    assert calls[0].arguments == {"repo": "acme/widgets", "number": 101, "label": "bug"}
    assert calls[0].state_changes == [
        StateChange(path="github.repos.acme/widgets.issues.101.labels", before=[], after=["bug"])
    ]
    assert calls[1].result == read
    assert (tmp_path / "server-stderr.txt").read_text(encoding="utf-8").startswith("ratchet mcp: ")


def test_state_is_isolated_between_two_server_runs(project: Path, tmp_path: Path) -> None:
    async def log_and_list(session: ClientSession) -> Any:
        await session.call_tool("crm_log_call", {"email": "ada@example.com", "summary": "renewal"})
        return result_json(await session.call_tool("crm_list_calls", {}))

    first = run_server(project, log_and_list, "--record", str(tmp_path / "one.jsonl"))
    second = run_server(project, log_and_list, "--record", str(tmp_path / "two.jsonl"))
    assert first == second == [{"email": "ada@example.com", "summary": "renewal"}]
    assert read_record(tmp_path / "one.jsonl") == read_record(tmp_path / "two.jsonl")
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_malformed_calls_are_errors_and_the_server_keeps_answering(project: Path, tmp_path: Path) -> None:
    record = tmp_path / "calls.jsonl"

    async def body(session: ClientSession) -> list[Any]:
        unknown = await session.call_tool("rm_rf", {"path": "/"})
        wrong = await session.call_tool("crm_find_contact", {"email": 7})
        with pytest.raises(MCPError):  # not a tools/call the SDK can parse: a JSON-RPC error
            await session.send_request(MalformedCall(), types.CallToolResult)
        after = await session.call_tool("clock_now", {})
        return [unknown, wrong, after]

    unknown, wrong, after = run_server(project, body, "--record", str(record))
    assert unknown.is_error and result_json(unknown)["error"].startswith(
        "unknown tool 'rm_rf'; available: files_read_file, "
    )
    assert wrong.is_error and result_json(wrong) == {
        "error": "arguments do not match the input schema: at email: 7 is not of type 'string'"
    }
    assert not after.is_error and result_json(after)["now"] == CLOCK
    calls = read_record(record)
    assert [(c.index, c.name, c.error is not None) for c in calls] == [
        (0, "rm_rf", True),
        (1, "crm_find_contact", True),
        (2, "clock_now", False),
    ]


def test_a_workspace_is_served_to_the_file_tools(project: Path) -> None:
    async def body(session: ClientSession) -> Any:
        return result_json(await session.call_tool("files_list_files", {}))

    listed = run_server(project, body, "--workspace", "fx-berlin-offsite")
    assert "expenses.csv" in json.dumps(listed)


def test_known_idempotent_tools_change_nothing_when_called_again() -> None:
    world = load_world(REPO / "bench/world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    args: dict[str, dict[str, Any]] = {
        "files_write_file": {"path": "out.txt", "content": "x"},
        "github_add_label": {"repo": "acme/widgets", "number": 101, "label": "bug"},
        "github_assign": {"repo": "acme/widgets", "number": 101, "assignee": "dana-kim"},
        "github_close_issue": {"repo": "acme/widgets", "number": 105, "reason": "duplicate"},
    }
    assert set(args) == KNOWN_IDEMPOTENT
    for index, (name, arguments) in enumerate(args.items()):
        first = call_tool(world, name, arguments, index)
        assert first.error is None, first.error
        data, files = json.dumps(world.data, sort_keys=True), dict(world.files)
        call_tool(world, name, arguments, index + 10)
        assert (json.dumps(world.data, sort_keys=True), world.files) == (data, files), name


def test_a_call_that_hits_bad_world_data_is_an_error_result_and_recorded(tmp_path: Path) -> None:
    world_dir = tmp_path / "world"
    (world_dir / "tools").mkdir(parents=True)
    (world_dir / "crm.yaml").write_text("crm: [1, 2]\n", encoding="utf-8")
    (world_dir / "tools/crm.yaml").write_text(docs_example(), encoding="utf-8")
    world = load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    server = MockedToolServer(world, CallRecorder(tmp_path / "calls.jsonl"))
    call = server.call("crm_log_call", {"email": "a@b.c", "summary": "x"})
    server.recorder.close()
    assert (call.index, call.effect) == (0, "write")
    assert call.error is not None and call.error.endswith(
        "passes through crm, which is not a mapping: fix the world or the state update"
    )
    assert call_result(call).is_error
    assert read_record(tmp_path / "calls.jsonl") == [call]
