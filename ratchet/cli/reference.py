"""The CLI reference (docs/cli.md), written by typer's own Markdown generator so it cannot drift.

`python -m ratchet.cli.reference` rewrites docs/cli.md; a test fails when it is stale. The text
is what `typer ratchet.cli utils docs --name ratchet --title "CLI reference"` prints, with a
notice under the title.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer
from typer.cli import get_docs_for_click
from typer.core import MARKUP_MODE_KEY
from typer.main import get_command

TITLE = "CLI reference"
NOTICE = (
    "Generated from the typer app by `python -m ratchet.cli.reference` (typer's docs generator); "
    "CI fails when this file is stale. Do not edit by hand."
)


def render_reference(app: typer.Typer) -> str:
    """docs/cli.md for `app`: every command's usage, arguments and options, in Markdown."""
    command = get_command(app)
    # As `typer ... utils docs` does: help text is read in the app's markup mode (and escaped for HTML).
    ctx = typer.Context(command, obj={MARKUP_MODE_KEY: app.rich_markup_mode})
    docs = get_docs_for_click(obj=command, ctx=ctx, name="ratchet", title=TITLE)
    heading, body = docs.split("\n\n", 1)
    return f"{heading}\n\n{NOTICE}\n\n{body.strip()}\n"


def main() -> None:
    from ratchet.cli import app

    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/cli.md")
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    target.write_text(render_reference(app), encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
