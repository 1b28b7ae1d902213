"""`ratchet mutate --executor ray`: mutants checked as Ray tasks on a local head (loopback) write what a
local run writes, byte for byte: the report on stdout, mutation.json, mutation.md and the saved scores."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ratchet.cli.mutate as mutate_cli
from ratchet.cli import app
from ratchet.core.ray_cluster import RAY_MISSING
from tests.helpers.ray_head import loopback_head, skip_without_ray
from tests.mutate.hand_made import HandMade

skip_without_ray()

runner = CliRunner()


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    yield from loopback_head()


def _copy(template: Path, root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(template, root, symlinks=True)
    monkeypatch.setenv("RATCHET_HOME", str(root / ".ratchet"))  # the actors are given it too
    return root


def _files(root: Path, out: Path) -> dict[str, bytes]:
    written = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    saved = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.glob("goldens/*/mutation.score.json"))}
    return {**written, **saved}


def _mutate(root: Path, *args: str) -> tuple[int, str, str]:
    out = root.parent / "out"
    result = runner.invoke(app, ["mutate", "--repo", str(root), "--json", "--out", str(out), *args])
    return result.exit_code, result.stdout, result.stderr


def _refused(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("checked in the driver, not on Ray")


def test_a_ray_run_writes_the_local_run_byte_for_byte(
    ray_head: str, _blessed_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(mutate_cli, "SOURCE", HandMade())
    local = _copy(_blessed_template, tmp_path / "local" / "repo", monkeypatch)
    code, expected, err = _mutate(local, "--concurrency", "2")
    assert code == 0, err
    spread = _copy(_blessed_template, tmp_path / "ray" / "repo", monkeypatch)
    monkeypatch.setattr("ratchet.mutate.run.check_mutant", _refused)  # this process checks no mutant itself
    code, got, err = _mutate(spread, "--concurrency", "2", "--executor", "ray", "--ray-address", ray_head)
    assert code == 0, err
    assert got == expected
    assert '"status": "killed"' in got and '"status": "survived"' in got
    files, want = _files(spread, spread.parent / "out"), _files(local, local.parent / "out")
    assert sorted(files) == sorted(want) and any(name.endswith("mutation.score.json") for name in want)
    for name in want:
        assert files[name] == want[name], name


def test_a_budget_with_the_ray_executor_is_one_line(demo_repo: Path) -> None:
    code, out, err = _mutate(demo_repo, "--executor", "ray", "--budget", "1")
    assert (code, out) == (2, "")
    assert err == (
        "error: --budget gives each check what the checks before it left, one after another: leave it out with "
        "--executor ray (RATCHET_BENCH_USD_CAP caps the spend of every run)\n"
    )


def test_ray_address_without_the_ray_executor_is_one_line(demo_repo: Path) -> None:
    code, out, err = _mutate(demo_repo, "--ray-address", "127.0.0.1:1")
    assert (code, out, err) == (2, "", "error: --ray-address: only with --executor ray\n")


def test_a_missing_ray_names_the_extra_in_one_line(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    code, out, err = _mutate(demo_repo, "--executor", "ray")
    assert (code, out, err) == (2, "", f"error: {RAY_MISSING}\n")
    assert not (demo_repo.parent / "out").exists()
