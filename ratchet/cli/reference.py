"""The CLI reference (docs/cli.md), generated from `--help` so it cannot drift.

`python -m ratchet.cli.reference` rewrites docs/cli.md; a test fails when it is stale.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from typer.main import get_command
from typer.testing import CliRunner

HEADER = (
    "# CLI reference\n\n"
    "Generated from `ratchet ... --help` by `python -m ratchet.cli.reference`; "
    "CI fails when this file is stale. Do not edit by hand.\n"
)


def _command_paths(app: typer.Typer) -> list[list[str]]:
    root = get_command(app)
    paths: list[list[str]] = [[]]

    def walk(command: object, prefix: list[str]) -> None:
        commands = getattr(command, "commands", None)
        if not commands:
            return
        for name in sorted(commands):
            sub = commands[name]
            if getattr(sub, "hidden", False):
                continue
            paths.append([*prefix, name])
            walk(sub, [*prefix, name])

    walk(root, [])
    return paths


def render_reference(app: typer.Typer) -> str:
    runner = CliRunner()
    env = {"COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1", "_TYPER_FORCE_DISABLE_TERMINAL": "1"}
    parts = [HEADER]
    for path in _command_paths(app):
        result = runner.invoke(app, [*path, "--help"], env=env, prog_name="ratchet")
        title = " ".join(["ratchet", *path])
        body = "\n".join(line.rstrip() for line in result.output.splitlines()).strip("\n")
        parts.append(f"\n## `{title}`\n\n```text\n{body}\n```\n")
    return "".join(parts)


def main() -> None:
    from ratchet.cli import app

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/cli.md")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    target.write_text(render_reference(app), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
