"""`bench run` and `bench build` check their upstream first: with the tiers' base down or serving other
models, one line and exit 3 before the estimate, the results directory or the scratch repository.

Real loopback servers (tests/helpers/fake_openai.py); the same checks for record, noise, mutate and
proxy are tests/cli/test_preflight_everywhere.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from ratchet.cli import app
from tests.bench.conftest import make_project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.live_tiers import closed_port, down_line, set_live_tiers, unlisted_line

runner = CliRunner()


@pytest.fixture(params=["down", "unlisted"])
def upstream(request: pytest.FixtureRequest) -> Iterator[tuple[str, str]]:
    if request.param == "down":
        base = f"http://127.0.0.1:{closed_port()}/v1"
        yield base, down_line(base)
        return
    with FakeOpenAI(listed=("other-model",)) as server:
        yield server.base_url, unlisted_line(server.base_url)
        assert server.requests == []


def test_bench_run(mini: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    set_live_tiers(mini, base)
    out = tmp_path / "results"
    result = runner.invoke(
        app, ["bench", "run", "--config", "cascade", "--root", str(mini), "--out", str(out), "--yes"]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert not out.exists()


def test_bench_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    root = make_project(tmp_path / "project", ("github-triage",))
    set_live_tiers(root, base)
    work = tmp_path / "work"
    result = runner.invoke(app, ["bench", "build", "--project", str(root), "--work", str(work), "--yes"])
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert not work.exists()


def _without_injector(root: Path) -> None:
    path = root / "ratchet.yaml"
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    del config["tiers"]["injector"]
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


@pytest.mark.parametrize(
    ("flags", "code"),
    [(["--no-inject"], 0), (["--types", "N0,D1"], 0), ([], 2)],
    ids=["no-inject", "controls", "inject"],
)
def test_bench_build_asks_for_the_injector_only_when_it_injects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], code: int
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    root = make_project(tmp_path / "project", ("github-triage",))
    with FakeOpenAI() as server:
        set_live_tiers(root, server.base_url)
        _without_injector(root)
        # --no-goldens and no control types: nothing to replay, so the build is its checks and nothing else.
        args = ["bench", "build", "--project", str(root), "--work", str(tmp_path / "work"), "--yes", "--no-goldens"]
        result = runner.invoke(app, [*args, "--no-controls", *flags])
        assert server.requests == []
    assert result.exit_code == code, result.stderr
    if code:
        assert result.stderr.startswith("error: unknown model tier 'injector'"), result.stderr
