"""RATCHET_* through one pydantic-settings model: read afresh, one line per bad variable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.env import DEFAULT_CAP_USD, debug_enabled, on_the_simulator, read_env
from ratchet.config.project import DEFAULT_CLOCK, default_home, load_project
from ratchet.core.errors import ConfigError
from ratchet.llm.budget import cap_from_env
from tests.helpers.gitrepo import make_repo

VARS = ("RATCHET_UPSTREAM", "RATCHET_CLOCK", "RATCHET_HOME", "RATCHET_BENCH_USD_CAP", "RATCHET_DEBUG", "XDG_CACHE_HOME")


@pytest.fixture(autouse=True)
def _no_ratchet_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARS:
        monkeypatch.delenv(name, raising=False)


def test_defaults_when_nothing_is_set(tmp_path: Path) -> None:
    env = read_env()
    assert (env.upstream, env.clock, env.home, env.bench_usd_cap, env.debug) == (
        None,
        None,
        None,
        DEFAULT_CAP_USD,
        False,
    )
    project = load_project(tmp_path)
    assert (project.config.upstream, project.config.clock) == ("sim", DEFAULT_CLOCK)


def test_the_environment_is_read_afresh_each_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    monkeypatch.setenv("RATCHET_CLOCK", "2027-01-02T03:04:05Z")
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "home"))
    project = load_project(tmp_path)
    assert (project.config.upstream, project.config.clock, project.home) == (
        "live",
        "2027-01-02T03:04:05Z",
        (tmp_path / "home").resolve(),
    )
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "0.5")
    assert load_project(tmp_path).config.upstream == "sim"
    assert cap_from_env() == 0.5


def test_empty_values_count_as_unset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in VARS:
        monkeypatch.setenv(name, "")
    env = read_env()
    assert (env.upstream, env.clock, env.home, env.bench_usd_cap, env.debug) == (
        None,
        None,
        None,
        DEFAULT_CAP_USD,
        False,
    )


def test_default_home_is_per_project_under_xdg_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    home = default_home(tmp_path / "proj")
    assert home.parent == tmp_path / "cache" / "ratchet" and home.name.startswith("proj-")


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("RATCHET_UPSTREAM", "x", "RATCHET_UPSTREAM must be 'sim' or 'live', not 'x'"),
        (
            "RATCHET_CLOCK",
            "tomorrow",
            "RATCHET_CLOCK must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not 'tomorrow'",
        ),
        (
            "RATCHET_CLOCK",
            "2026-10-14T16:00:00+02:00",
            "RATCHET_CLOCK must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not '2026-10-14T16:00:00+02:00'",
        ),
        (
            "RATCHET_CLOCK",
            "2026-10-14",
            "RATCHET_CLOCK must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not '2026-10-14'",
        ),
        ("RATCHET_BENCH_USD_CAP", "lots", "RATCHET_BENCH_USD_CAP must be a number of USD, 0 or more, not 'lots'"),
        ("RATCHET_BENCH_USD_CAP", "-1", "RATCHET_BENCH_USD_CAP must be a number of USD, 0 or more, not '-1'"),
    ],
)
def test_a_bad_variable_is_one_line_naming_it(
    name: str, value: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_project(tmp_path)
    assert caught.value.one_line() == message


def test_a_bad_cap_fails_the_cap_lookup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_BENCH_USD_CAP", "-3")
    with pytest.raises(ConfigError, match=r"^RATCHET_BENCH_USD_CAP must be a number of USD, 0 or more, not '-3'$"):
        cap_from_env()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("RATCHET_UPSTREAM", "x", "error: RATCHET_UPSTREAM must be 'sim' or 'live', not 'x'\n"),
        (
            "RATCHET_CLOCK",
            "noon",
            "error: RATCHET_CLOCK must be an ISO-8601 UTC instant like 2026-10-14T16:00:00Z, not 'noon'\n",
        ),
        (
            "RATCHET_BENCH_USD_CAP",
            "ten",
            "error: RATCHET_BENCH_USD_CAP must be a number of USD, 0 or more, not 'ten'\n",
        ),
    ],
)
def test_ratchet_check_reports_a_bad_variable_in_one_line(
    name: str, value: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path, {"README.md": "x\n"})
    monkeypatch.setenv(name, value)
    result = CliRunner().invoke(app, ["check", "--repo", str(repo), "--base", "main", "--level0-only"])
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", message)


@pytest.mark.parametrize(
    ("value", "on"), [("1", True), ("yes", True), ("please", True), ("0", False), ("false", False)]
)
def test_debug_is_any_word_but_false(value: str, on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_DEBUG", value)
    assert debug_enabled() is on


def test_debug_is_read_even_when_another_variable_is_bad(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "x")
    monkeypatch.setenv("RATCHET_DEBUG", "1")
    assert debug_enabled()
    with pytest.raises(ConfigError):
        read_env()


def test_debug_keeps_the_traceback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path, {"README.md": "x\n"})
    monkeypatch.setenv("RATCHET_UPSTREAM", "x")
    monkeypatch.setenv("RATCHET_DEBUG", "1")
    result = CliRunner().invoke(app, ["check", "--repo", str(repo), "--base", "main", "--level0-only"])
    assert isinstance(result.exception, ConfigError)


def test_on_the_simulator_is_sim_inside_and_as_it_was_after(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with on_the_simulator():
        assert read_env().upstream == "sim"
    assert os.environ["RATCHET_UPSTREAM"] == "live"
    monkeypatch.delenv("RATCHET_UPSTREAM")
    with pytest.raises(RuntimeError), on_the_simulator():
        raise RuntimeError("a failed demo")
    assert "RATCHET_UPSTREAM" not in os.environ
