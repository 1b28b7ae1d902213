"""Must-show 2 of issue 30: after a timeout that committed, checking before retrying keeps one payment.

A real temp git repo on the simulator. The first payment call meets a seeded timeout_after_commit
fault: the payment went out, the agent only sees a timeout. The blessed skill checks whether it went
out before retrying (a team's declared read tool lists the payments) and so pays once; an edit that
retries blindly pays twice, and `ratchet check` BLOCKs it on Level 0 alone with a hard fail naming
the repeated call (repeated_after_lost_reply), no judge needed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import commit
from tests.helpers.pay_invoice import GOLDEN, PAY, WORLD, record_and_bless
from tests.helpers.project_text import skill_md

runner = CliRunner()
LIST_TOOL = """schema_version: 1
tools:
  - name: bank_list_payments
    description: Every payment scheduled with the bank, oldest first.
    effect: read
    input_schema: {type: object, properties: {}}
    default:
      result: $world.invoices.payments
"""
CHECK_FIRST = (
    "If `$pay.error`: the payment may have gone out anyway, so check first: `bank_list_payments()` as `$paid`.\n"
    f"   1. If `len($paid) == 0`: nothing went out, so retry once: {PAY} as `$pay`."
)
BLIND = f"If `$pay.error`: retry once: {PAY} as `$pay`."
OUTPUT = {"payment": "$pay.id"}


def skill(retry: str) -> str:
    return skill_md(
        "pay-invoice",
        "Pay an approved invoice. Use when asked to pay an invoice. We never pay an invoice twice.",
        "Pay an invoice",
        steps=[f"Schedule the payment: {PAY} as `$pay`.", retry],
        output=OUTPUT,
    )


TASKS = """schema_version: 1
tasks:
  - id: pay-01
    skill: pay-invoice
    prompt: Please pay invoice NW-7 from Northwind.
    faults:
      - {tool: payments_schedule, kind: timeout_after_commit, call: 1}
"""


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    """The check-before-retry skill, recorded and blessed with the fault; the base sha."""
    return record_and_bless(
        tmp_path,
        monkeypatch,
        {
            "skills/pay-invoice/SKILL.md": skill(CHECK_FIRST),
            "tasks.yaml": TASKS,
            "world/invoices.yaml": WORLD,
            "world/tools/bank.yaml": LIST_TOOL,
        },
    )


def test_checking_before_retrying_keeps_one_payment(project: tuple[Path, str]) -> None:
    repo, _ = project
    golden = json.loads((repo / GOLDEN).read_text(encoding="utf-8"))
    pay, listed = golden["tool_calls"]
    assert (pay["name"], pay["fault"], listed["name"]) == (
        "payments_schedule",
        "timeout_after_commit",
        "bank_list_payments",
    )
    assert [change["path"] for change in pay["state_changes"]] == ["invoices.payments"]  # it committed
    assert len(listed["result"]) == 1  # so the skill saw the payment and did not retry


def test_retrying_blindly_pays_twice_and_is_a_hard_fail_naming_the_repeat(project: tuple[Path, str]) -> None:
    repo, base = project
    commit(repo, {"skills/pay-invoice/SKILL.md": skill(BLIND)}, "retry without checking")
    result = runner.invoke(app, ["check", "--base", base, "--format", "json"])
    assert (result.exit_code, result.stderr) == (1, "")
    verdict = json.loads(result.stdout)
    [pair] = verdict["pairs"]
    assert (verdict["decision"], pair["outcome"], pair["decided_by"]) == ("BLOCK", "regression", "level0")
    repeated = [f for f in pair["findings"] if f["kind"] == "repeated_after_lost_reply"]
    assert [(f["severity"], f["tool"], f["replay_index"]) for f in repeated] == [("hard", "payments_schedule", 1)]
    assert repeated[0]["detail"] == (
        "repeated spend call payments_schedule(amount=240, currency='USD', invoice_number='NW-7', "
        "pay_on='2026-10-15', vendor_id='V-1001') after its reply was lost (call 0 timed out after it "
        "committed): the effect happened twice"
    )
    assert pair["reason"] == f"hard fail: {repeated[0]['detail']}"
    assert not [f for f in pair["findings"] if f["kind"] == "new_side_effect"]  # replaced by the named repeat
