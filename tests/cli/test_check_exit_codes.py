"""`ratchet check` exit codes when the gate could not do its job: a fault stops the push.

A pair that could not be checked exits 3 (infrastructure) with the verdict still printed, unless
`--on-error warn` (WARN, 0) or `--on-error block` (BLOCK, 1) is given; a gate config naming a tier
ratchet.yaml lacks, a missing key, a dead upstream and a budget that is no cap at all are one line.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit, git

runner = CliRunner()
EDIT = "edit/changed-argument"
KEY_ENV = "RATCHET_TEST_PREFLIGHT_KEY"
MODEL = "openai/fake-model"
UNCHECKED = "error: 10 pair(s) could not be checked, first github-triage-01: "


def check(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


def closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def on_main_then_edit(repo: Path, files: dict[str, str | None]) -> str:
    """Commit `files` on main (the base the gate reads its settings from); branch the edit from it."""
    base = commit(repo, files, "gate settings")
    apply_edit(repo, next(e for e in EDITS if e.branch == EDIT))
    return base


def live_yaml(api_base: str) -> str:
    tier = f'{{model: {MODEL}, api_base: "{api_base}", api_key_env: {KEY_ENV}, max_tokens: 64}}'
    return (
        "schema_version: 1\nupstream: live\n"
        "retry: {max_attempts: 2, base_delay_s: 0.01, max_delay_s: 0.02}\n"
        "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        f"prices:\n  {MODEL}: {{input: 0.000001, output: 0.000002}}\n"
    )


# -- a pair that could not be checked ------------------------------------------------------------


@pytest.fixture
def empty_cache(demo_repo: Path, tmp_path: Path) -> tuple[Path, str, str]:
    """`--cache none` over an empty work area: every replay fails, as under a dead provider."""
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, next(e for e in EDITS if e.branch == EDIT))
    return demo_repo, base, str(tmp_path / "empty-home")


def test_unchecked_pairs_exit_3_with_the_verdict_printed(empty_cache: tuple[Path, str, str]) -> None:
    repo, base, home = empty_cache
    code, out, err = check(repo, "--base", base, "--head", EDIT, "--cache", "none", "--work", home, "--json")
    assert code == 3, (out[-500:], err)
    verdict = json.loads(out)
    assert {p["outcome"] for p in verdict["pairs"]} == {"error"}
    assert verdict["decision"] == "BLOCK" and verdict["on_error"] is None  # no --on-error: not "block" (exit 1)
    assert "(unchecked pairs block)" in verdict["summary"] and "on-error" not in verdict["summary"]
    assert err.startswith(UNCHECKED) and err.count("\n") == 1
    assert err.rstrip().endswith("fix the cause and re-run, or pass --on-error warn to let it through as WARN")


def test_unchecked_pairs_exit_3_under_ci_too_and_print_the_table(
    empty_cache: tuple[Path, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    repo, base, home = empty_cache
    code, out, err = check(repo, "--base", base, "--head", EDIT, "--cache", "none", "--work", home)
    assert code == 3 and "BLOCK" in out and "could not be checked" in out
    assert err.startswith(UNCHECKED) and err.count("\n") == 1


def test_on_error_warn_explicitly_lets_it_through_as_warn(empty_cache: tuple[Path, str, str]) -> None:
    repo, base, home = empty_cache
    code, out, err = check(
        repo, "--base", base, "--head", EDIT, "--cache", "none", "--work", home, "--json", "--on-error", "warn"
    )
    assert (code, err) == (0, "")
    verdict = json.loads(out)
    assert (verdict["decision"], verdict["on_error"]) == ("WARN", "warn")


def test_on_error_block_explicitly_blocks_with_exit_1(empty_cache: tuple[Path, str, str]) -> None:
    repo, base, home = empty_cache
    code, out, err = check(
        repo, "--base", base, "--head", EDIT, "--cache", "none", "--work", home, "--on-error", "block"
    )
    assert (code, err) == (1, "")
    assert "BLOCK" in out and "could not be checked (unchecked pairs block)" in out


def test_a_clean_check_still_exits_0_with_no_flag(demo_repo: Path) -> None:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, next(e for e in EDITS if e.branch == "edit/cosmetic"))
    code, out, err = check(demo_repo, "--base", base, "--head", "edit/cosmetic")
    assert (code, err) == (0, "") and "PASS" in out


# -- before any replay ---------------------------------------------------------------------------


def test_an_unknown_tier_in_a_gate_config_is_exit_2_naming_file_and_tier(demo_repo: Path) -> None:
    bogus = (
        "schema_version: 1\nname: bogus\ntiers:\n  - {tier: nano, threshold: 0.5}\n  - {tier: mega, threshold: 0.5}\n"
    )
    base = on_main_then_edit(demo_repo, {"configs/bogus.yaml": bogus})
    code, out, err = check(demo_repo, "--base", base, "--head", EDIT, "--config", "bogus")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "configs/bogus.yaml" in err and "unknown judge tier 'mega'" in err
    assert ".ratchet" not in err, "names the file in the repository, not a scratch copy"


def test_a_missing_key_is_exit_3_naming_tier_and_variable(demo_repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with FakeOpenAI() as server:
        base = on_main_then_edit(demo_repo, {"ratchet.yaml": live_yaml(server.base_url)})
        code, out, err = check(demo_repo, "--base", base, "--head", EDIT)
    assert (code, out) == (3, "")
    assert err == f"error: tier agent: {KEY_ENV} is not set (the key for {MODEL}); export it, then re-run\n"
    assert server.requests == []


def test_an_unreachable_upstream_is_exit_3_naming_tier_and_base(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, "sk-test")
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    base = on_main_then_edit(demo_repo, {"ratchet.yaml": live_yaml(dead)})
    code, out, err = check(demo_repo, "--base", base, "--head", EDIT)
    assert (code, out) == (3, "")
    assert err == (
        f"error: tier agent: cannot reach {dead} (connection refused); start the server or fix the "
        "tier's api_base in ratchet.yaml\n"
    )


# -- budgets -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-5", "0", "-inf"])
def test_a_budget_must_be_finite_and_positive(demo_repo: Path, value: str) -> None:
    code, out, err = check(demo_repo, "--base", "main", "--budget", value)
    assert (code, out) == (2, "")
    assert err == f"error: --budget must be a finite amount of USD above 0, not {value}; e.g. --budget 0.50\n"


def test_a_positive_budget_is_taken(demo_repo: Path) -> None:
    code, out, _ = check(demo_repo, "--base", "main", "--budget", "0.5")
    assert code == 0 and "PASS" in out


@pytest.mark.parametrize("value", ["-5", "nan", "0"])
def test_proxy_refuses_a_budget_that_is_no_cap_before_it_serves(tmp_path: Path, value: str) -> None:
    # The port is taken, so a proxy that wrongly started would fail to bind (exit 1), not hang.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        result = runner.invoke(
            app,
            ["proxy", "--port", port, "--budget", value, "--project", str(tmp_path), "--work", str(tmp_path / "home")],
        )
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: --budget must be a finite amount of USD above 0, not {value}; e.g. --budget 0.50\n"
