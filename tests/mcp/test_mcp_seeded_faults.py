"""The MCP server a harness replay starts honours the replay's seeded faults.

The harness driver hands the fault plan to the run's warm server in the replay's header
(WorldSource.serve_options, registered under the pump's one-time ticket; `python -m ratchet.mcp --faults JSON` where no warm
server can run); the real server is driven over stdio with the official MCP client, as Claude Code
or Codex would. The recorded calls carry the fault, as the minimal runner's do.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from ratchet.goldens.faults import FAULT_ERRORS, FaultSpec
from ratchet.goldens.trace import ToolCall
from ratchet.harness.driver import WorldSource
from ratchet.mcp.record import read_record
from ratchet.world.faults import FaultPlan
from tests.mcp.test_module_entry_serves_the_replay_world import CLOCK, drive, replay_calls

WORLD = """invoices:
  vendors:
    - {id: V-1, name: Northwind, currency: USD, approval_limit: 2000, approver: a@example.com}
  recorded:
    - {vendor_id: V-1, number: N-1, total: 10, currency: USD, status: approved}
  payments: []
"""
PAY = {"vendor_id": "V-1", "invoice_number": "N-1", "amount": 10, "currency": "USD", "pay_on": "2026-10-15"}
PLAN = FaultPlan(task_id="pay-01", faults=(FaultSpec(tool="payments_schedule", kind="transient", call=1),))


def test_the_harness_server_fails_the_seeded_call_and_records_the_fault(tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    (tmp_path / "world" / "invoices.yaml").write_text(WORLD, encoding="utf-8")
    source = WorldSource(
        world_dir=tmp_path / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK, faults=PLAN
    )
    record, volatile = tmp_path / "calls.jsonl", tmp_path / "volatile.jsonl"
    assert source.serve_options(record, volatile).faults == PLAN
    argv = source.mcp_argv(record, volatile)
    calls = [ToolCall(index=i, name="payments_schedule", arguments=PAY, effect="spend") for i in range(2)]
    _, answers = drive(argv, replay_calls(calls), tmp_path / "stderr.txt")
    assert answers == [
        {"error": FAULT_ERRORS["transient"]},
        {"scheduled": True, "id": "PAY-0001", "pay_on": "2026-10-15"},
    ]
    first, second = read_record(record)
    assert (first.fault, first.state_changes, second.fault, len(second.state_changes)) == ("transient", [], None, 1)


def test_no_faults_means_no_plan_in_the_header(tmp_path: Path) -> None:
    empty = WorldSource(
        world_dir=tmp_path, workspaces_dir=None, workspace=None, frozen_time=CLOCK, faults=FaultPlan(task_id="t")
    )
    assert empty.serve_options(tmp_path / "r", tmp_path / "v").faults is None


def test_a_bad_faults_flag_is_one_line_exit_2(tmp_path: Path) -> None:
    bad = '{"task_id": "t", "faults": [{"tool": "x", "kind": "flaky"}]}'
    done = subprocess.run(
        [sys.executable, "-m", "ratchet.mcp", "--world", str(tmp_path), "--clock", CLOCK, "--faults", bad],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("error: --faults: faults.0.kind: Input should be")
    assert done.stderr.count("\n") == 1
