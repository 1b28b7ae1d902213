"""`python -m ratchet.mcp`: the MCP server a harness adapter starts once per replay, without the CLI.

Why a second entry point: Claude Code and Codex connect to their MCP servers while they start,
and every millisecond the server takes to come up is spent per replay. `ratchet mcp` imports
typer and every command of the CLI; this entry imports only argparse, the world and the MCP SDK.
Both go through ratchet/mcp/launch.py, so they serve the same world from the same flags.
Errors are the CLI's: one line `error: ...` on stderr and the error's exit code (2 for input).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError

from ratchet.config.env import debug_enabled
from ratchet.core.errors import RatchetError
from ratchet.mcp.launch import ServeOptions, launch
from ratchet.world.faults import FaultPlan


class _OneLineParser(argparse.ArgumentParser):
    """argparse whose usage errors are one line and exit 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def parser() -> argparse.ArgumentParser:
    """The flags, named and meant as in `ratchet mcp` (docs/mcp.md)."""
    p = _OneLineParser(prog="python -m ratchet.mcp", description="Serve a world's mocked tools over MCP (stdio).")
    p.add_argument("--world", type=Path, required=True, help="World folder (missing: an empty world).")
    p.add_argument("--workspaces", type=Path, default=None, help="Workspaces folder (needed with --workspace).")
    p.add_argument("--workspace", default=None, help="Serve this workspace's files to the files_* tools.")
    p.add_argument("--clock", required=True, help="Frozen clock, ISO-8601 UTC (the golden's frozen_time).")
    p.add_argument(
        "--overlay", type=Path, action="append", default=[], help="World YAML file merged on top; repeatable."
    )
    p.add_argument("--record", type=Path, default=None, help="Write each call here, one ToolCall JSON per line.")
    p.add_argument("--volatile", type=Path, default=None, help="Write each volatile read here, one JSON per line.")
    p.add_argument(
        "--faults", default=None, help="Seeded faults to arm the world with: a FaultPlan as JSON (docs/faults.md)."
    )
    return p


def main(argv: Sequence[str] | None = None) -> None:
    """Parse, check, serve; a RatchetError is one line on stderr and its exit code."""
    args = parser().parse_args(argv)
    try:
        faults = FaultPlan.model_validate_json(args.faults) if args.faults is not None else None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        print(f"error: --faults: {where + ': ' if where else ''}{first['msg']}", file=sys.stderr)
        sys.exit(2)
    options = ServeOptions(
        world=args.world,
        workspaces=args.workspaces,
        workspace=args.workspace,
        clock=args.clock,
        overlays=tuple(args.overlay),
        record=args.record,
        volatile=args.volatile,
        faults=faults,
    )
    try:
        launch(options)
    except RatchetError as exc:
        if debug_enabled():
            raise
        print(f"error: {exc.one_line()}", file=sys.stderr)
        sys.exit(exc.exit_code)


if __name__ == "__main__":
    main()
