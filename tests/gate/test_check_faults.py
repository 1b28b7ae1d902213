"""Faults never turn into a PASS (with no --on-error they exit 3), and a sentinel key never reaches
a file or a printed line.

`ratchet check` on the live path against a real local HTTP server that answers 401 (echoing the
key back in its error body, as some providers do) or 503.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.gitrepo import commit

KEY_ENV = "RATCHET_TEST_KEY"
SENTINEL = "sk-SENTINEL-0b6c1d9e8f7a-never-print-me"
EDIT = {edit.branch: edit for edit in EDITS}


def _go_live(repo: Path, server: FakeOpenAI) -> None:
    tier = f'{{model: openai/fake-model, api_base: "{server.base_url}", api_key_env: {KEY_ENV}, max_tokens: 64}}'
    (repo / "ratchet.yaml").write_text(
        "schema_version: 1\nupstream: live\n"
        # Two fast attempts: the 503 path proves the retries give up, not how long the default policy waits.
        "retry: {max_attempts: 2, base_delay_s: 0.01, max_delay_s: 0.02}\n"
        "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        "prices:\n  openai/fake-model: {input: 0.000001, output: 0.000002}\n",
        encoding="utf-8",
    )


def _files_containing(root: Path, needle: bytes) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.mark.parametrize("status", [401, 503])
def test_provider_faults_fail_closed_and_keep_the_key_secret(
    status: int, demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(KEY_ENV, SENTINEL)
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    monkeypatch.setenv("RATCHET_HOME", str(tmp_path / "live-home"))
    with FakeOpenAI() as server:
        server.script(*([status] * 400))
        _go_live(demo_repo, server)
        # ratchet.yaml is read from the base (docs/adr/0011): the live tiers must be committed there
        base = commit(demo_repo, {"ratchet.yaml": (demo_repo / "ratchet.yaml").read_text(encoding="utf-8")}, "live")
        apply_edit(demo_repo, EDIT["edit/changed-argument"])
        warn = CliRunner().invoke(
            app,
            [
                "check",
                "--repo",
                str(demo_repo),
                "--base",
                base,
                "--head",
                "edit/changed-argument",
                "--json",
                "--on-error",
                "warn",
            ],
        )
        block = CliRunner().invoke(
            app,
            [
                "check",
                "--repo",
                str(demo_repo),
                "--base",
                base,
                "--head",
                "edit/changed-argument",
                "--on-error",
                "block",
            ],
        )
        default = CliRunner().invoke(
            app, ["check", "--repo", str(demo_repo), "--base", base, "--head", "edit/changed-argument"]
        )
    assert warn.exit_code == 0, warn.stdout[:3000]
    assert server.requests and all(SENTINEL in r["authorization"] for r in server.requests)
    verdict = json.loads(warn.stdout)
    assert warn.exit_code == 0 and verdict["decision"] == "WARN"
    assert {p["outcome"] for p in verdict["pairs"]} == {"error"}
    assert block.exit_code == 1 and "BLOCK" in block.stdout
    # No --on-error: the fault is an infrastructure failure (exit 3), the verdict still printed.
    assert default.exit_code == 3 and "BLOCK" in default.stdout
    assert default.stderr.startswith("error: 10 pair(s) could not be checked") and default.stderr.count("\n") == 1
    out, err = capfd.readouterr()
    for text in (warn.stdout, warn.stderr, block.stdout, block.stderr, default.stdout, default.stderr, out, err):
        assert SENTINEL not in text and SENTINEL[:12] not in text
    assert _files_containing(tmp_path, SENTINEL.encode()) == []
