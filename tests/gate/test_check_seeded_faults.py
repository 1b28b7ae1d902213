"""Must-show 1 of issue 30: a retry on a transient failure is seen only by goldens recorded with a fault.

A real temp git repo on the simulator: a skill pays an invoice and, if the payment call fails, retries
it once. With a seeded transient fault on the first payment (`faults:` on the task), the golden holds
the failed call and the retry; an edit that deletes the retry is BLOCKed by `ratchet check`, even when
the same pull request also drops the task's `faults:` (a replay draws from the golden's declarations).
Without faults the golden never took the retry branch, so deleting it replays identically: no replay
can see it, which is the point of seeding faults. The gate still does not PASS it: the behavioural diff
names the removed payment, which no replay exercised, and floors the verdict at WARN (docs/diff.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.faults import FAULT_ERRORS
from tests.helpers.gitrepo import commit
from tests.helpers.pay_invoice import GOLDEN, PAY, WORLD, record_and_bless
from tests.helpers.project_text import skill_md

runner = CliRunner()
RETRY = f"If `$pay.error`: the service may be briefly down, so retry once: {PAY} as `$pay`."
STEPS = [f"Schedule the payment: {PAY} as `$pay`.", RETRY]
OUTPUT = {"status": '"not paid" if $pay.error else "scheduled"', "payment": "$pay.id"}
SKILL = skill_md(
    "pay-invoice",
    "Pay an approved invoice. Use when asked to pay an invoice.",
    "Pay an invoice",
    steps=STEPS,
    output=OUTPUT,
)
NO_RETRY = skill_md(
    "pay-invoice",
    "Pay an approved invoice. Use when asked to pay an invoice.",
    "Pay an invoice",
    steps=STEPS[:1],
    output=OUTPUT,
)
TASK = "schema_version: 1\ntasks:\n  - id: pay-01\n    skill: pay-invoice\n    prompt: Please pay invoice NW-7 from Northwind.\n"
FAULTS = "    faults:\n      - {tool: payments_schedule, kind: transient, call: 1}\n"


def blessed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tasks: str, world: str = WORLD) -> tuple[Path, str]:
    """A committed project whose golden was recorded and blessed under `tasks`; the base sha."""
    return record_and_bless(
        tmp_path, monkeypatch, {"skills/pay-invoice/SKILL.md": SKILL, "tasks.yaml": tasks, "world/invoices.yaml": world}
    )


def check(base: str) -> tuple[int, str]:
    result = runner.invoke(app, ["check", "--base", base])
    assert result.stderr == ""
    return result.exit_code, result.stdout


def test_with_a_seeded_fault_the_golden_holds_the_failure_and_the_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = blessed(tmp_path, monkeypatch, TASK + FAULTS)
    golden = json.loads((repo / GOLDEN).read_text(encoding="utf-8"))
    assert golden["faults"] == [{"tool": "payments_schedule", "kind": "transient", "call": 1, "probability": 1.0}]
    assert "fault_run" not in golden  # run 0 is left out
    first, second = golden["tool_calls"]
    assert (first["fault"], first["error"], first["state_changes"]) == ("transient", FAULT_ERRORS["transient"], [])
    assert ("fault" not in second, second["error"], second["result"]["id"]) == (True, None, "PAY-0001")
    assert "status: scheduled" in golden["final_output"]


def test_the_golden_records_the_tasks_faults_then_the_worlds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = WORLD + "faults:\n  - {tool: invoices_*, kind: timeout_before_commit}\n"
    repo, _ = blessed(tmp_path, monkeypatch, TASK + FAULTS, world)
    golden = json.loads((repo / GOLDEN).read_text(encoding="utf-8"))
    assert [(spec["tool"], spec["kind"]) for spec in golden["faults"]] == [
        ("payments_schedule", "transient"),
        ("invoices_*", "timeout_before_commit"),
    ]


def test_deleting_the_retry_is_blocked_when_the_golden_has_the_fault(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base = blessed(tmp_path, monkeypatch, TASK + FAULTS)
    commit(repo, {"skills/pay-invoice/SKILL.md": NO_RETRY}, "drop the retry")
    code, out = check(base)
    assert code == 1
    assert "pay-01   regression" in out and "\nBLOCK " in out


def test_dropping_the_faults_in_the_same_pull_request_does_not_hide_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, base = blessed(tmp_path, monkeypatch, TASK + FAULTS)
    commit(repo, {"skills/pay-invoice/SKILL.md": NO_RETRY, "tasks.yaml": TASK}, "drop the retry and the fault")
    code, out = check(base)
    assert code == 1
    assert "pay-01   regression" in out and "\nBLOCK " in out


def test_a_replay_meets_the_goldens_faults_not_the_heads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, base = blessed(tmp_path, monkeypatch, TASK + FAULTS)
    reworded = SKILL.replace("# Pay an invoice", "# Pay an invoice\n\nBe brief.")
    commit(repo, {"skills/pay-invoice/SKILL.md": reworded, "tasks.yaml": TASK}, "reword, and drop the fault")
    code, out = check(base)
    # The replay still meets the golden's transient fault, fails once and retries: the same two calls.
    # Drawn from the head's tasks.yaml (no faults) it would make one call and differ from its golden. WARN,
    # not PASS: the task changed, and the reworded line is prose the simulator does not read.
    assert code == 0
    assert "1 more   same      identical to the golden" in out and "\nWARN  tasks changed: 1 of pay-invoice" in out


def test_without_faults_deleting_the_retry_replays_identically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo, base = blessed(tmp_path, monkeypatch, TASK)
    golden = json.loads((repo / GOLDEN).read_text(encoding="utf-8"))
    assert "faults" not in golden and [call["name"] for call in golden["tool_calls"]] == ["payments_schedule"]
    commit(repo, {"skills/pay-invoice/SKILL.md": NO_RETRY}, "drop the retry")
    code, out = check(base)
    # The payment never failed while recording, so the retry branch never ran; the replay without it makes
    # the same one call and says the same thing: invisible to such a golden. Only the diff sees it: WARN.
    assert code == 0
    flat = " ".join(out.split())
    assert "1 more same identical to the golden" in flat
    assert (
        "WARN the edit no longer tells the agent to call payments_schedule (spend) in skill pay-invoice that no "
        "replay exercised (static: warn); 1 affected golden(s) replayed without a regression"
    ) in flat
