"""Options with a fixed set of values are typer choices: typer lists them in --help and refuses the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.cli import flat_stderr
from tests.helpers.gitrepo import make_repo


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["check", "--base", "main", "--cache", "bogus"],
            "Usage: ratchet check [OPTIONS] Try 'ratchet check --help' for help. Error Invalid value for '--cache': "
            "Value error, 'bogus' is not one of 'once', 'new', 'none', 'all'.",
        ),
        (
            ["check", "--base", "main", "--on-error", "shrug"],
            "Usage: ratchet check [OPTIONS] Try 'ratchet check --help' for help. Error Invalid value for '--on-error': "
            "Value error, 'shrug' is not one of 'warn', 'block'.",
        ),
        (
            ["proxy", "--cache", "bogus"],
            "Usage: ratchet proxy [OPTIONS] Try 'ratchet proxy --help' for help. Error Invalid value for '--cache': "
            "Value error, 'bogus' is not one of 'once', 'new', 'none', 'all'.",
        ),
        (
            ["proxy", "--port", "0"],
            "Usage: ratchet proxy [OPTIONS] Try 'ratchet proxy --help' for help. Error Invalid value for '--port': "
            "Input should be greater than or equal to 1",
        ),
        (
            ["bench", "label", "some-edit", "--disagree", "--decision", "maybe"],
            "Usage: ratchet bench label [OPTIONS] [edit_id] Try 'ratchet bench label --help' for help. Error Invalid "
            "value for '--decision': Value error, 'maybe' is not one of 'PASS', 'WARN', 'BLOCK'.",
        ),
    ],
)
def test_a_value_outside_the_choices_is_a_usage_error(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, args)
    assert (result.exit_code, result.stdout, flat_stderr(result)) == (2, "", message)


@pytest.mark.parametrize("ci", [None, "true"])
def test_on_error_defaults_to_block_in_and_out_of_ci(
    ci: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No flag: a fault fails closed everywhere (exit 3, tests/cli/test_check_exit_codes.py); CI changes nothing.
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    repo = make_repo(tmp_path, {"README.md": "no skills here\n"})
    result = CliRunner().invoke(app, ["check", "--repo", str(repo), "--base", "main", "--json", "--level0-only"])
    assert result.exit_code == 0, result.stderr
    verdict = json.loads(result.stdout)
    assert (verdict["decision"], verdict["on_error"]) == ("PASS", None)  # no flag given: the default, exit 3
