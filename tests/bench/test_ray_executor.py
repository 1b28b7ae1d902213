"""bench run --executor ray: items scored by Ray actors on a local head (loopback) write the files a
single-process run writes, byte for byte (timings.json excepted: wall clock).

One Ray head per module (tests/helpers/ray_head.py), started in a child process on 127.0.0.1 and
reached through --ray-address (the existing-cluster path); it is stopped with that child. Skipped only
when Ray is not installed outside CI: CI installs the extra (scripts/check), so there a missing Ray fails.
"""

from __future__ import annotations

import importlib.util
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.bench.run.ray_exec import RAY_MISSING
from ratchet.bench.run.run import RunOptions, run_config
from ratchet.cli import app
from ratchet.data import packaged_config
from tests.bench.fixtures_mini import build_mini_dataset, mini_copy
from tests.helpers.ray_head import loopback_head, skip_without_ray

CONFIGS = ("noise", "cascade", "nano_only")  # E6 goldens, a recording run, and a re-judging one

skip_without_ray()


@pytest.fixture(scope="module")
def ray_head() -> Iterator[str]:
    """A Ray head on loopback for this module (tests/helpers/ray_head.py)."""
    yield from loopback_head()


@pytest.fixture(scope="module")
def mini_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_mini_dataset(tmp_path_factory.mktemp("mini-ray") / "root")


def _out(root: Path) -> Path:
    return root / "bench" / "results" / "smoke-sim"


def _files(out: Path) -> dict[str, bytes]:
    """Every file of a results directory but the wall clock (timings.json)."""
    return {
        p.relative_to(out).as_posix(): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.is_file() and p.name != "timings.json"
    }


def _run(root: Path, config: str, executor: str = "local", ray_address: str | None = None) -> None:
    run_config(
        RunOptions(
            config_path=packaged_config(config),
            out=_out(root),
            root=root,
            command=f"test {config}",
            concurrency=2,
            executor=executor,
            ray_address=ray_address,
        )
    )


def test_a_ray_run_writes_the_single_process_results_byte_for_byte(
    ray_head: str, mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.delenv("RATCHET_HOME", raising=False)
    one = mini_copy(mini_template, tmp_path / "one" / "root")
    spread = mini_copy(mini_template, tmp_path / "ray" / "root")
    for config in CONFIGS:
        _run(one, config)
        _run(spread, config, executor="ray", ray_address=ray_head)
    expected, got = _files(_out(one)), _files(_out(spread))
    assert "results.json" in expected and any(name.startswith("replays/cascade/") for name in expected)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert got[name] == expected[name], name


def test_ray_address_without_the_ray_executor_is_refused_in_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["bench", "run", "--config", "cascade", "--root", str(tmp_path), "--ray-address", "127.0.0.1:1"]
    )
    assert result.exit_code == 2
    assert "only with --executor ray" in result.output


def test_a_missing_ray_names_the_extra_in_one_line(
    mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = mini_copy(mini_template, tmp_path / "root")
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    result = CliRunner().invoke(app, ["bench", "run", "--config", "cascade", "--root", str(root), "--executor", "ray"])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1].endswith(RAY_MISSING)
    assert not (_out(root) / "results.json").exists()


def test_a_ray_address_where_nothing_listens_is_one_line_not_a_hang(
    mini_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ray itself retries a wrong address for minutes; the run checks the head's port first.
    root = mini_copy(mini_template, tmp_path / "root")
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = ["bench", "run", "--config", "cascade", "--root", str(root), "--executor", "ray"]
    result = CliRunner().invoke(app, [*args, "--ray-address", f"127.0.0.1:{port}"])
    assert result.exit_code == 3, result.output
    assert result.output.strip().splitlines()[-1] == (
        f"error: could not reach a Ray cluster at 127.0.0.1:{port}: Connection refused; start the head or fix "
        "--ray-address"
    )
