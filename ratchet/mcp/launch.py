"""One way to start the MCP server, shared by `python -m ratchet.mcp` (fast) and `ratchet mcp` (the CLI).

Both take the same world options, and both load the world the way ratchet/gate/replay.py's
replay_task does (`load_world(world, workspaces_dir=..., workspace=..., frozen_time=clock,
overlays=...)`), so a harness replay serves exactly the tools, results and world digest the
minimal runner's replay would see. Every input is checked here, before the server reads or
answers anything: a bad one is an InputError (one line, exit 2) and no byte reaches stdout.
"""

from __future__ import annotations

import sys

from ratchet.config.env import utc_instant
from ratchet.core.errors import InputError
from ratchet.mcp.options import ServeOptions
from ratchet.mcp.record import CallRecorder, VolatileRecorder
from ratchet.mcp.server import serve
from ratchet.world.faults import arm
from ratchet.world.state import World, load_world
from ratchet.world.tools import offered_tools

__all__ = ["ServeOptions", "launch", "prepare", "served_world"]  # ServeOptions lives in options.py


def served_world(options: ServeOptions) -> World:
    """The world a server with these options serves: replay_task's load_world, call for call."""
    try:
        clock = utc_instant(options.clock)
    except ValueError as exc:
        raise InputError(f"--clock {exc}") from None
    world = load_world(
        options.world,
        workspaces_dir=options.workspaces,
        workspace=options.workspace,
        frozen_time=clock,
        overlays=options.overlays,
    )
    return arm(world, options.faults)


def prepare(options: ServeOptions) -> tuple[World, CallRecorder, VolatileRecorder]:
    """Check every input and open the record files, then say what is served on stderr (nothing is served yet)."""
    world = served_world(options)
    recorder = CallRecorder(options.record)
    try:
        volatile = VolatileRecorder(options.volatile)
    except InputError:
        recorder.close()
        raise
    # stdout is the protocol's: anything for people goes to stderr. The digest is the trace's world_digest.
    line = f"ratchet mcp: {len(offered_tools(world))} tools, clock {world.frozen_time}, world {world.digest()}"
    if options.record is not None:
        line += f", recording to {options.record}"
    if options.volatile is not None:
        line += f", volatile reads to {options.volatile}"
    print(line, file=sys.stderr, flush=True)
    return world, recorder, volatile


def launch(options: ServeOptions) -> None:
    """Check every input, say what is served on stderr, then serve over stdio until the client hangs up."""
    serve(*prepare(options))
