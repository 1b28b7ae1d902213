"""`ratchet check --shard K/N --shard-file F` and `ratchet merge`, through the CLI as a CI matrix runs them.

The CLI measures wall time on the real clock, so these compare verdicts with the timing figures
set to 0; tests/gate/test_shard.py shows the bytes equal under a frozen clock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit

runner = CliRunner()
EDIT = next(e for e in EDITS if e.branch == "edit/changed-argument")


def ratchet(*args: str, home: Path) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"RATCHET_HOME": str(home)})
    return result.exit_code, result.stdout, result.stderr


def untimed(text: str) -> Any:
    """The verdict JSON with the figures that measure the machine set to 0."""
    verdict = json.loads(text)
    verdict["wall_ms"] = 0.0
    for pair in verdict["pairs"]:
        pair["latency_ms"] = 0.0
        for opinion in pair["opinions"]:
            opinion["latency_ms"] = 0.0
    return verdict


def run_shards(repo: Path, tmp: Path, count: int, *extra: str) -> list[Path]:
    files = []
    for k in range(1, count + 1):
        path = tmp / "shards" / f"{k}.json"
        code, out, err = ratchet(
            "check",
            "--repo",
            str(repo),
            "--base",
            "main",
            "--head",
            EDIT.branch,
            "--shard",
            f"{k}/{count}",
            "--shard-file",
            str(path),
            *extra,
            home=tmp / f"h{k}",
        )
        assert code == 4, err
        assert out.splitlines()[0].startswith(f"PARTIAL: shard {k}/{count}, "), out
        assert out.splitlines()[0].endswith(f"run ratchet merge on all {count} shard files"), out
        files.append(path)
    return files


def test_a_matrix_of_three_shards_merges_into_the_check_and_its_exit_code(demo_repo: Path, tmp_path: Path) -> None:
    apply_edit(demo_repo, EDIT)
    code, whole, _ = ratchet(
        "check", "--repo", str(demo_repo), "--base", "main", "--head", EDIT.branch, "--json", home=tmp_path / "whole"
    )
    files = run_shards(demo_repo, tmp_path, 3)
    merged_md = tmp_path / "merged.md"
    merged_code, merged, err = ratchet(
        "merge", *map(str, files), "--json", "--output", f"markdown={merged_md}", home=tmp_path / "merge"
    )
    assert (merged_code, code) == (1, 1), err
    assert untimed(merged) == untimed(whole)
    assert merged_md.read_text(encoding="utf-8").count("BLOCK") >= 1


def test_a_shard_in_json_says_partial_on_stderr_and_in_its_summary(demo_repo: Path, tmp_path: Path) -> None:
    apply_edit(demo_repo, EDIT)
    shard_file = tmp_path / "s.json"
    code, out, err = ratchet(
        "check",
        "--repo",
        str(demo_repo),
        "--base",
        "main",
        "--head",
        EDIT.branch,
        "--json",
        "--shard",
        "1/2",
        "--shard-file",
        str(shard_file),
        home=tmp_path / "h",
    )
    assert code == 4
    assert err.startswith("PARTIAL: shard 1/2, ")
    assert json.loads(out)["summary"].startswith("PARTIAL: shard 1/2, ")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--shard", "1/3"],
            "error: --shard 1/3 needs --shard-file FILE: the file ratchet merge combines with the others\n",
        ),
        (
            ["--shard-file", "x.json"],
            "error: --shard-file is where --shard K/N writes its shard: give --shard too, e.g. --shard 1/3\n",
        ),
        (
            ["--shard", "3/2", "--shard-file", "x.json"],
            "error: --shard '3/2': expected K/N with 1 <= K <= N, e.g. --shard 2/3\n",
        ),
    ],
)
def test_shard_flags_are_refused_in_one_line(demo_repo: Path, tmp_path: Path, flags: list[str], message: str) -> None:
    code, _, err = ratchet("check", "--repo", str(demo_repo), "--base", "main", *flags, home=tmp_path / "h")
    assert (code, err) == (2, message)


def test_merge_refuses_a_missing_or_duplicate_shard_in_one_line_exit_2(demo_repo: Path, tmp_path: Path) -> None:
    apply_edit(demo_repo, EDIT)
    one, two = run_shards(demo_repo, tmp_path, 2, "--level0-only")
    code, _, err = ratchet("merge", str(one), home=tmp_path / "m")
    assert (code, err) == (2, "error: shard(s) 2/2 missing: merge needs every shard of the run\n")
    code, _, err = ratchet("merge", str(one), str(two), str(one), home=tmp_path / "m")
    assert (code, err) == (2, f"error: {one}: shard 1/2 given twice (also {one}): give each shard file once\n")
