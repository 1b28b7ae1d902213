"""Reading typer's usage errors without depending on the width of its Rich error panel."""

from __future__ import annotations

import re

from click.testing import Result

_BOX = re.compile(r"[╭╮╰╯│─]")


def flat_stderr(result: Result) -> str:
    """stderr with the panel's box drawing removed and all whitespace collapsed to single spaces."""
    return " ".join(_BOX.sub(" ", result.stderr).split())
