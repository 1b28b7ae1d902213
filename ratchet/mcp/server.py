"""An MCP server over one World: the offered tools (shipped packs, then declared ones), each call recorded.

Why the SDK's low-level Server and not MCPServer (FastMCP): MCPServer derives a tool's input
schema from a Python function's signature, while our tools already have theirs (the shipped
packs' `Tool.spec()`, a team's JSON Schema) and must be served byte for byte as the minimal
runner offers them; the low-level `list_tools` / `call_tool` handlers take the schema, name,
description and annotations as data.

One server process holds one World, loaded fresh at start: one replay = one server, so state
never leaks between replays. Each volatile fact a call read goes to the volatile recorder right
after the call, before the call's own line and its answer, as the minimal runner keeps them in
`world.volatile_reads`. A call that fails (unknown tool, arguments that do not fit, a tool
that crashed) is an MCP tool result with `isError: true` and is recorded like any other call;
a request the SDK cannot parse is a JSON-RPC error; neither stops the server.
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from ratchet.core.errors import RatchetError
from ratchet.core.jsonio import canonical_dumps
from ratchet.core.labels import __version__
from ratchet.goldens.trace import ToolCall
from ratchet.mcp.annotations import EFFECT_META_KEY, annotations_for
from ratchet.mcp.record import CallRecorder, VolatileRecorder
from ratchet.world.state import World
from ratchet.world.tools import Tool, call_tool, offered_tools

SERVER_NAME = "ratchet-mocked-tools"
INSTRUCTIONS = "Mocked tools over a fictional, frozen world: nothing real is called, every call is recorded."


def mcp_tool(tool: Tool) -> types.Tool:
    """A tool as MCP lists it: the same name, description and schema the minimal runner offers."""
    spec = tool.spec()
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=spec.parameters,
        annotations=annotations_for(tool),
        _meta={EFFECT_META_KEY: tool.effect},
    )


def call_result(call: ToolCall) -> types.CallToolResult:
    """The ToolCall as MCP answers it: the same JSON text the minimal runner's agent sees."""
    payload = {"error": call.error} if call.error is not None else call.result
    text = canonical_dumps(payload, indent=None)
    structured = call.result if call.error is None and isinstance(call.result, dict) else None
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=call.error is not None
    )


class MockedToolServer:
    """The state of one server process: its World, the next call index, where calls and volatile reads are recorded."""

    def __init__(self, world: World, recorder: CallRecorder, volatile: VolatileRecorder | None = None) -> None:
        self.world = world
        self.recorder = recorder
        self.volatile = volatile or VolatileRecorder(None)
        self.calls = 0
        self._reads_written = len(world.volatile_reads)
        self.server: Server[Any] = Server(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[mcp_tool(t) for t in offered_tools(self.world)])

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        return call_result(self.call(params.name, params.arguments or {}))

    def call(self, name: str, arguments: dict[str, Any]) -> ToolCall:
        """Run one call against this server's World, record it, and return it."""
        index, self.calls = self.calls, self.calls + 1
        try:
            record = call_tool(self.world, name, arguments, index)
        except RatchetError as exc:  # a crashed pack or bad world data: the harness sees it, the server lives on
            effect = next((t.effect for t in offered_tools(self.world) if t.name == name), "read")
            record = ToolCall(index=index, name=name, arguments=dict(arguments), effect=effect, error=exc.one_line())
            print(f"ratchet mcp: {exc.one_line()}", file=sys.stderr)
        for read in self.world.volatile_reads[self._reads_written :]:
            self.volatile.write(read)
        self._reads_written = len(self.world.volatile_reads)
        self.recorder.write(record)
        return record

    async def serve_stdio(self) -> None:
        async with stdio_server() as (read_stream, write_stream):
            await self.server.run(read_stream, write_stream, self.server.create_initialization_options())


def serve(world: World, recorder: CallRecorder, volatile: VolatileRecorder | None = None) -> None:
    """Serve world's tools over stdio until the client closes the connection."""
    try:
        anyio.run(MockedToolServer(world, recorder, volatile).serve_stdio)
    finally:
        recorder.close()
        if volatile is not None:
            volatile.close()
