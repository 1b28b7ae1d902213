"""Every command that calls a model checks its upstream first: with the tiers' base down (a closed
loopback port) or answering without the tier's model in its list, `record`, `noise`, `bless --repeats`,
`mutate` and `proxy` print one line and exit 3 before any work, and nothing is written.

The servers are real (tests/helpers/fake_openai.py on 127.0.0.1); `bench build` and `bench run` are
tests/bench/test_preflight.py.
"""

from __future__ import annotations

import shutil
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.trace import NOISE_SUFFIX
from tests.helpers.demo_repo import demo_project, pending_traces
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit, git
from tests.helpers.live_tiers import closed_port, down_line, live_tiers_text, set_live_tiers, unlisted_line

runner = CliRunner()


@pytest.fixture(params=["down", "unlisted"])
def upstream(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, str]]:
    """A tiers' base and the one line a command prints for it: refused, or up without the tier's model."""
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    if request.param == "down":
        base = f"http://127.0.0.1:{closed_port()}/v1"
        yield base, down_line(base)
        return
    with FakeOpenAI(listed=("other-model",)) as server:
        yield server.base_url, unlisted_line(server.base_url)
        assert server.requests == []  # asked what it serves, never for a completion


def test_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]) -> None:
    root = demo_project(tmp_path, monkeypatch)
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    set_live_tiers(root, base)
    result = runner.invoke(app, ["record", "--project", str(root)])
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)  # before the routing table too
    assert pending_traces(tmp_path) == []


def test_noise(demo_repo: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    set_live_tiers(demo_repo, base)
    result = runner.invoke(
        app, ["noise", "--repeats", "2", "--project", str(demo_repo), "--work", str(demo_repo / ".ratchet")]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert list((demo_repo / "goldens").glob(f"*/*{NOISE_SUFFIX}")) == []


def test_bless_with_repeats_blesses_nothing_first(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    set_live_tiers(demo_repo, base)
    pending = demo_repo / ".ratchet" / "pending"
    pending.mkdir(parents=True, exist_ok=True)
    shutil.copy(demo_repo / "goldens" / "github-triage" / "github-triage-01.json", pending / "github-triage-01.json")
    before = (demo_repo / "goldens" / "github-triage" / "github-triage-01.json").read_bytes()
    result = runner.invoke(
        app, ["bless", "--repeats", "2", "--project", str(demo_repo), "--work", str(demo_repo / ".ratchet")]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert [p.name for p in pending.iterdir()] == ["github-triage-01.json"]  # still pending: not blessed
    assert (demo_repo / "goldens" / "github-triage" / "github-triage-01.json").read_bytes() == before


def test_mutate_stops_before_the_first_mutant(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    text = (demo_repo / "ratchet.yaml").read_text(encoding="utf-8")
    commit(demo_repo, {"ratchet.yaml": live_tiers_text(text, base)}, "live tiers")
    refs = git(demo_repo, "for-each-ref")
    result = runner.invoke(app, ["mutate", "--limit", "1", "--repo", str(demo_repo)])
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
    assert git(demo_repo, "for-each-ref") == refs
    assert list((demo_repo / "goldens").glob("*/mutation.score.json")) == []


def test_proxy_does_not_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, upstream: tuple[str, str]) -> None:
    root = demo_project(tmp_path, monkeypatch)
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    base, line = upstream
    set_live_tiers(root, base)
    # The proxy's port is taken: a proxy that got past its preflight fails to bind instead of serving forever.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(app, ["proxy", "--port", str(port), "--project", str(root)])
    assert (result.exit_code, result.stdout, result.stderr) == (3, "", line)
