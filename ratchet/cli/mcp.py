"""`ratchet mcp`: serve the world's mocked tools to an agent harness as an MCP server over stdio."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from ratchet.config import load_project


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    @app.command()
    def mcp(
        project_dir: Path = typer.Option(Path("."), "--project", help="Project root (holds ratchet.yaml: world, workspaces, clock)."),
        workspace: str | None = typer.Option(None, "--workspace", help="Load this workspace's files (as a task naming it would)."),
        record: Path | None = typer.Option(None, "--record", help="Write every call here, one ToolCall JSON per line, flushed per call."),
    ) -> None:
        """Serve the mocked tools over MCP (stdio): one server = one replay = one fresh world."""
        from ratchet.mcp.record import CallRecorder
        from ratchet.mcp.server import serve
        from ratchet.world.state import load_world
        from ratchet.world.tools import offered_tools

        project = load_project(project_dir)
        world = load_world(
            project.path("world"), workspaces_dir=project.path("workspaces"), workspace=workspace,
            frozen_time=project.config.clock,
        )
        recorder = CallRecorder(record)
        # stdout is the protocol's: anything for people goes to stderr.
        print(f"ratchet mcp: {len(offered_tools(world))} tools, clock {project.config.clock}"
              + (f", recording to {record}" if record else ""), file=sys.stderr)
        serve(world, recorder)
