"""`ratchet mcp`: serve the world's mocked tools to an agent harness as an MCP server over stdio."""

from __future__ import annotations

from pathlib import Path

import typer

from ratchet.config.project import load_project


def register(app: typer.Typer) -> None:
    """Add this module's commands to the app."""

    @app.command()
    def mcp(
        project_dir: Path | None = typer.Option(
            None,
            "--project",
            help="Project root (default .): its ratchet.yaml gives the world, the workspaces and the clock "
            "that --world, --workspaces and --clock do not.",
        ),
        world: Path | None = typer.Option(None, "--world", help="World folder, instead of the project's paths.world."),
        workspaces: Path | None = typer.Option(
            None, "--workspaces", help="Workspaces folder, instead of the project's."
        ),
        workspace: str | None = typer.Option(
            None, "--workspace", help="Load this workspace's files (as a task naming it would)."
        ),
        clock: str | None = typer.Option(
            None, "--clock", help="Frozen clock (ISO-8601 UTC), instead of the project's."
        ),
        overlay: list[Path] = typer.Option(
            [], "--overlay", metavar="FILE", help="World YAML file merged on top of the world; repeatable."
        ),
        record: Path | None = typer.Option(
            None, "--record", help="Write every call here, one ToolCall JSON per line, flushed per call."
        ),
        volatile: Path | None = typer.Option(
            None, "--volatile", help="Write every volatile read here, one JSON per line, flushed per call."
        ),
    ) -> None:
        """Serve the mocked tools over MCP (stdio): one server = one replay = one fresh world."""
        from ratchet.mcp.launch import ServeOptions, launch

        if world is None or workspaces is None or clock is None:  # all three given: no ratchet.yaml is read
            project = load_project(project_dir or Path("."))
            world = world or project.path("world")
            workspaces = workspaces or project.path("workspaces")
            clock = clock or project.config.clock
        launch(
            ServeOptions(
                world=world,
                workspaces=workspaces,
                workspace=workspace,
                clock=clock,
                overlays=tuple(overlay),
                record=record,
                volatile=volatile,
            )
        )
