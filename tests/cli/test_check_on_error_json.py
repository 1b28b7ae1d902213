"""The JSON verdict's `on_error` says what applied: the flag as given, or null for the default (exit 3).

Why: with no `--on-error` the verdict said `"on_error": "block"`, which reads as `--on-error block`
(an unchecked pair BLOCKs, exit 1), while what applies is the CLI's default: an unchecked pair
BLOCKs the verdict and the check exits 3 as infrastructure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import make_repo

runner = CliRunner()


@pytest.mark.parametrize(
    ("flag", "said"), [([], None), (["--on-error", "warn"], "warn"), (["--on-error", "block"], "block")]
)
def test_the_json_verdict_names_the_flag_as_given(flag: list[str], said: str | None, tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"README.md": "no skills here\n"})
    result = runner.invoke(app, ["check", "--repo", str(repo), "--base", "main", "--json", "--level0-only", *flag])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["on_error"] == said


def test_merge_names_it_as_the_shards_were_given_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"README.md": "no skills here\n"})
    shard_file = tmp_path / "shard-1.json"
    shard = runner.invoke(
        app,
        [
            "check",
            "--repo",
            str(repo),
            "--base",
            "main",
            "--level0-only",
            "--shard",
            "1/1",
            "--shard-file",
            str(shard_file),
        ],
    )
    assert shard.exit_code == 4, shard.stderr
    merged = runner.invoke(app, ["merge", str(shard_file), "--json"])
    assert merged.exit_code == 0, merged.stderr
    assert json.loads(merged.stdout)["on_error"] is None
