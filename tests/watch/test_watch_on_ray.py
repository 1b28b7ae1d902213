"""`ratchet watch --executor ray`: goldens replayed as Ray tasks on a local head (loopback) print the local
run's report, byte for byte, with its exit code."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.core.ray_cluster import RAY_MISSING
from tests.helpers.ray_head import loopback_head, skip_without_ray

skip_without_ray()

runner = CliRunner()


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    yield from loopback_head()


def _watch(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["watch", "--project", str(repo), "--json", *args])
    return result.exit_code, result.stdout, result.stderr


def _refused(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("replayed in the driver, not on Ray")


def test_a_ray_run_prints_the_local_report_byte_for_byte(
    ray_head: str, _watched_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("CI", raising=False)
    runs = []
    for name, extra in (("local", ()), ("ray", ("--executor", "ray", "--ray-address", ray_head))):
        root = tmp_path / name / "repo"
        shutil.copytree(_watched_template, root, symlinks=True)
        monkeypatch.setenv("RATCHET_HOME", str(root / ".ratchet"))  # the actors are given it too
        if extra:  # this process replays nothing itself: a replay here would fail the run
            monkeypatch.setattr("ratchet.watch.run.WorkPool", _refused)
        runs.append(_watch(root, "--concurrency", "2", *extra))
    (code, expected, err), (got_code, got, got_err) = runs
    assert code in (0, 4), err
    assert '"kind": "same"' in expected and '"kind": "differed"' in expected
    assert (got_code, got) == (code, expected), got_err


def test_ray_address_without_the_ray_executor_is_one_line(watched_repo: Path) -> None:
    code, out, err = _watch(watched_repo, "--ray-address", "127.0.0.1:1")
    assert (code, out, err) == (2, "", "error: --ray-address: only with --executor ray\n")


def test_a_missing_ray_names_the_extra_in_one_line(watched_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    code, out, err = _watch(watched_repo, "--executor", "ray")
    assert (code, out, err) == (2, "", f"error: {RAY_MISSING}\n")
