"""`--help` shows a flag as a flag: no `<bool>` type tag, which read as if the flag took a value."""

from __future__ import annotations

from typing import Any

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from ratchet.cli import app


def _command_paths(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    # Duck-typed: typer builds its commands on its own copy of click's classes.
    if not hasattr(command, "commands"):
        return [path]
    found = [path]
    for name in sorted(command.commands):
        found += _command_paths(command.commands[name], (*path, name))
    return found


COMMANDS = _command_paths(get_command(app))


def test_a_few_commands_are_walked() -> None:
    assert {("check",), ("review",), ("record",), ("bench", "run"), ()} <= set(COMMANDS)


@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: " ".join(p) or "ratchet")
def test_help_shows_no_bool_tag(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output


def test_check_help_still_shows_its_flags_and_value_types() -> None:
    result = CliRunner().invoke(app, ["check", "--help"], env={"COLUMNS": "200", "TERMINAL_WIDTH": "200"})
    rows = {
        cells[0]: cells[1:]
        for line in result.output.splitlines()
        if (cells := line.strip("│ *").split()) and cells[0].startswith("--")
    }
    assert rows["--staged"][0] == "Gate" and rows["--json"][0] == "Same"  # the help text follows the flag
    assert rows["--base"][0] == "<str>"  # a value's type is still named
