"""`ratchet record` warns and `ratchet bless` refuses a trace that shows no sign of its skill at work.

Why (issue 24): live, with an agent model that does not follow the skill (a small local model answered
in one turn, no tool call, an invented total), `record` and `bless` said nothing, and every later edit
PASSed: nothing in the goldens for Level 0 to see. Reproduced here with a fake OpenAI-compatible server
on loopback whose agent answers without calling any tool. Now each such trace is one line at `record`
(a warning) and at `bless` (a refusal, exit 2, naming what is missing); `--accept-thin` blesses it anyway
and records the reasons on the golden (ratchet.bless.evidence, docs/adr/0020-thin-goldens.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.demo_repo import demo_project, pending_traces
from tests.helpers.fake_openai import FakeOpenAI

runner = CliRunner()
TASKS = ["fx-expense-converter-01", "github-triage-01", "canary-01"]
FX = (
    "task fx-expense-converter-01 shows no sign of skill fx-expense-converter at work: no tool it names was called "
    "(files_read_file, fx_get_rate); the output has none of the fields it prescribes "
    "(file, status, lines, weekend_rates, total_usd)"
)
TRIAGE = (
    "task github-triage-01 shows no sign of skill github-triage at work: no tool it names was called "
    "(github_get_issue, github_add_label, github_comment, github_close_issue, github_assign); the output has none "
    "of the fields it prescribes (repo, issue, status, type, priority, component, assignee, duplicate_of)"
)
REFUSED = "; re-record it with an agent that follows the skill, or bless it with --accept-thin"


def live_yaml(server: FakeOpenAI) -> str:
    tier = f'{{model: openai/fake-model, api_base: "{server.base_url}", max_tokens: 64}}'
    return (
        "schema_version: 1\nupstream: live\nretry: {max_attempts: 1, base_delay_s: 0.01, max_delay_s: 0.02}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        "prices:\n  openai/fake-model: {input: 0.000001, output: 0.000002}\n"
    )


@pytest.fixture
def live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, FakeOpenAI]]:
    """The demo project with every tier on a fake server whose agent answers at once, calling no tool."""
    root = demo_project(tmp_path, monkeypatch)
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    server = FakeOpenAI().start()
    (root / "ratchet.yaml").write_text(live_yaml(server), encoding="utf-8")
    yield root, server
    server.stop()


def cli(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_record_warns_one_line_per_thin_trace(live: tuple[Path, FakeOpenAI], tmp_path: Path) -> None:
    root, _ = live
    code, out, err = cli("record", *TASKS, "--project", str(root))
    assert code == 0, err
    assert out.splitlines()[-1] == f"recorded 3 pending trace(s) in {tmp_path / 'home' / 'pending'}"
    ahead = "; `ratchet bless` refuses it unless --accept-thin"
    assert err == f"warning: {FX}{ahead}\nwarning: {TRIAGE}{ahead}\n"  # the canary is no skill's: exempt


def test_bless_refuses_each_thin_trace_naming_what_is_missing(live: tuple[Path, FakeOpenAI], tmp_path: Path) -> None:
    root, _ = live
    assert cli("record", *TASKS, "--project", str(root))[0] == 0
    code, out, err = cli("bless", "--project", str(root))
    assert code == 2
    assert out == f"blessed 1 golden(s) into {root / 'goldens'}\n"  # the canary
    assert err == (
        f"error: {FX}{REFUSED}\n"
        f"error: {TRIAGE}{REFUSED}\n"
        "error: 2 pending trace(s) refused; fix or re-record them, then bless again\n"
    )
    assert pending_traces(tmp_path) == ["fx-expense-converter-01.json", "github-triage-01.json"]
    assert sorted(p.relative_to(root).as_posix() for p in (root / "goldens").glob("*/*.json")) == [
        "goldens/_none/canary-01.json"
    ]


def test_accept_thin_blesses_and_records_the_reasons_on_the_golden(
    live: tuple[Path, FakeOpenAI], tmp_path: Path
) -> None:
    root, _ = live
    assert cli("record", *TASKS, "--project", str(root))[0] == 0
    code, out, err = cli("bless", "--accept-thin", "--project", str(root))
    assert code == 0, err
    assert out.splitlines()[0] == f"blessed 3 golden(s) into {root / 'goldens'}"  # then the mutation-score line
    kept = "; blessed with --accept-thin: every check that replays it names it"
    assert err == f"warning: {FX}{kept}\nwarning: {TRIAGE}{kept}\n"
    golden = json.loads((root / "goldens" / "fx-expense-converter" / "fx-expense-converter-01.json").read_text())
    assert golden["thin"] == [
        "no tool it names was called (files_read_file, fx_get_rate)",
        "the output has none of the fields it prescribes (file, status, lines, weekend_rates, total_usd)",
    ]
    canary = json.loads((root / "goldens" / "_none" / "canary-01.json").read_text())
    assert "thin" not in canary  # left out of the JSON when empty: existing goldens stay byte-identical


def test_a_run_that_calls_a_tool_the_skill_names_is_not_thin(live: tuple[Path, FakeOpenAI], tmp_path: Path) -> None:
    root, server = live
    server.script(("tool", "files_read_file", {"path": "expenses.csv"}))  # then an answer, as before
    code, _, err = cli("record", "fx-expense-converter-01", "--project", str(root))
    assert (code, err) == (0, "")
    code, out, err = cli("bless", "--project", str(root))
    assert (code, out.splitlines()[0], err) == (0, f"blessed 1 golden(s) into {root / 'goldens'}", "")


def test_the_help_names_accept_thin() -> None:
    code, out, _ = cli("bless", "--help")
    assert code == 0 and "--accept-thin" in out
