"""What one MCP server serves and where it records: the options of every entry point, as one model.

Its own module, apart from launch.py, so a process that only names the options (the harness driver
writing a warm server's header, ratchet/harness/warm_mcp.py) does not import the MCP SDK with them.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ratchet.world.faults import FaultPlan


class ServeOptions(BaseModel):
    """What one server serves and where it records (the flags of `python -m ratchet.mcp` and `ratchet mcp`,
    and the header a replay sends the warm server, ratchet/mcp/warm.py)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    world: Path = Field(
        description="The world folder (YAML files, tools/ for declared tools); missing = an empty world."
    )
    workspaces: Path | None = Field(description="The workspaces folder, needed when `workspace` is set.")
    workspace: str | None = Field(default=None, description="The task's workspace, served to the files_* tools.")
    clock: str = Field(description="The frozen clock, ISO-8601 UTC (a replay passes its golden's frozen_time).")
    overlays: tuple[Path, ...] = Field(default=(), description="World YAML files deep-merged on top, in order.")
    record: Path | None = Field(default=None, description="One ToolCall per line, flushed per call.")
    volatile: Path | None = Field(default=None, description="One VolatileRead per line, flushed per call.")
    faults: FaultPlan | None = Field(
        default=None, description="Seeded faults the served world is armed with (a replay passes its golden's)."
    )
