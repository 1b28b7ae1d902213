"""Which formats a verdict can be written in, and `--output FORMAT=FILE` parsed and written.

The formats that are pure text live here (json, markdown, junit); `table` is the terminal's rich
table and is drawn by ratchet.outputs.table, which this module must not import (outputs sit below
the CLI). Files are written atomically, so a CI step reading one never sees half a report.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel

from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text
from ratchet.gate.models import Verdict
from ratchet.outputs.junit import render_junit
from ratchet.outputs.markdown import render_markdown


class OutputFormat(StrEnum):
    """A way to write a verdict."""

    TABLE = "table"
    JSON = "json"
    MARKDOWN = "markdown"
    JUNIT = "junit"


FORMAT_NAMES = ", ".join(f.value for f in OutputFormat)


class OutputTarget(BaseModel):
    """One `--output FORMAT=FILE`: a format and the file it goes to."""

    format: OutputFormat
    path: Path


def parse_output(spec: str) -> OutputTarget:
    """`junit=ratchet.xml` -> OutputTarget, or a one-line InputError saying what a valid one is."""
    name, sep, path = spec.partition("=")
    example = "e.g. --output junit=ratchet.xml"
    if not sep or not path.strip():
        raise InputError(f"--output {spec!r} is not FORMAT=FILE; FORMAT is one of {FORMAT_NAMES}, {example}")
    try:
        fmt = OutputFormat(name.strip().lower())
    except ValueError:
        raise InputError(f"--output {spec!r}: unknown format {name!r}; use one of {FORMAT_NAMES}, {example}") from None
    target = Path(path)
    if target.is_dir():
        raise InputError(f"--output {spec!r}: {path} is a folder; name a file in it, {example}")
    return OutputTarget(format=fmt, path=target)


def parse_outputs(specs: list[str]) -> list[OutputTarget]:
    """Every `--output`, refusing two that would write the same file (the second would win silently)."""
    targets = [parse_output(spec) for spec in specs]
    seen: dict[Path, OutputTarget] = {}
    for target in targets:
        key = target.path.absolute()
        if key in seen:
            raise InputError(
                f"--output names {target.path} twice ({seen[key].format.value} and "
                f"{target.format.value}); give each format its own file"
            )
        seen[key] = target
    return targets


def render_text(verdict: Verdict, fmt: OutputFormat) -> str:
    """The verdict in a text format (not `table`, which needs a console)."""
    match fmt:
        case OutputFormat.JSON:
            return verdict.to_json()
        case OutputFormat.MARKDOWN:
            return render_markdown(verdict)
        case OutputFormat.JUNIT:
            return render_junit(verdict)
        case OutputFormat.TABLE:
            raise ValueError("the table is drawn by ratchet.outputs.table")


def write_output(target: OutputTarget, text: str) -> None:
    """Write one report atomically (temp file in the same folder, then rename)."""
    atomic_write_text(target.path, text)
