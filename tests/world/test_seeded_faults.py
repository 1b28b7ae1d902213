"""Seeded tool faults in the world: declared in world YAML (`faults:`), armed per run, honoured by call_tool.

A transient or timeout_before_commit call does not run the tool (world unchanged, no state changes);
timeout_after_commit runs it and loses the reply. A call the agent got wrong anyway is never faulted
and does not count toward `call: n`. Declared tools (world/tools/*.yaml) honour faults like the packs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.goldens.faults import FAULT_ERRORS, FaultSpec
from ratchet.world import World, load_world
from ratchet.world.faults import FaultPlan, arm
from ratchet.world.tools import call_tool
from tests.helpers.project_text import FIND_CONTACT_TOOL

CLOCK = "2026-10-14T16:00:00Z"
INVOICES = """invoices:
  vendors:
    - {id: V-1, name: Northwind, currency: USD, approval_limit: 2000, approver: a@example.com}
  recorded:
    - {vendor_id: V-1, number: N-1, total: 10, currency: USD, status: approved}
  payments: []
"""
PAY = {"vendor_id": "V-1", "invoice_number": "N-1", "amount": 10, "currency": "USD", "pay_on": "2026-10-15"}


def world_of(tmp_path: Path, *files: tuple[str, str]) -> World:
    world_dir = tmp_path / "world"
    for name, text in files:
        (world_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (world_dir / name).write_text(text, encoding="utf-8")
    return load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)


def armed(world: World, *specs: FaultSpec, task_id: str = "t-1", run: int = 0) -> World:
    arm(world, FaultPlan(task_id=task_id, run=run, faults=specs))
    return world


@pytest.mark.parametrize("kind", ["transient", "timeout_before_commit"])
def test_a_refused_call_leaves_the_world_unchanged_and_says_why(tmp_path: Path, kind: str) -> None:
    world = armed(world_of(tmp_path, ("invoices.yaml", INVOICES)), FaultSpec(tool="payments_schedule", kind=kind))
    call = call_tool(world, "payments_schedule", PAY, 0)
    assert (call.fault, call.error, call.effect, call.state_changes, call.result) == (
        kind,
        FAULT_ERRORS[kind],
        "spend",
        [],
        None,
    )
    assert world.data["invoices"]["payments"] == []


def test_after_commit_the_effect_happened_and_the_reply_is_lost(tmp_path: Path) -> None:
    world = armed(
        world_of(tmp_path, ("invoices.yaml", INVOICES)), FaultSpec(tool="payments_*", kind="timeout_after_commit")
    )
    call = call_tool(world, "payments_schedule", PAY, 0)
    assert (call.fault, call.error) == ("timeout_after_commit", FAULT_ERRORS["timeout_after_commit"])
    assert call.result == {"scheduled": True, "id": "PAY-0001", "pay_on": "2026-10-15"}
    assert [change.path for change in call.state_changes] == ["invoices.payments"]
    assert len(world.data["invoices"]["payments"]) == 1


def test_call_n_counts_only_calls_that_reached_the_tool(tmp_path: Path) -> None:
    world = armed(
        world_of(tmp_path, ("invoices.yaml", INVOICES)), FaultSpec(tool="payments_schedule", kind="transient", call=2)
    )
    bad = call_tool(world, "payments_schedule", {"vendor_id": "V-1"}, 0)  # missing arguments: the agent's own error
    first = call_tool(world, "payments_schedule", PAY, 1)
    second = call_tool(world, "payments_schedule", PAY, 2)
    third = call_tool(world, "payments_schedule", PAY, 3)
    assert [c.fault for c in (bad, first, second, third)] == [None, None, "transient", None]
    assert bad.error is not None and "missing required argument" in bad.error
    assert len(world.data["invoices"]["payments"]) == 2


def test_an_unarmed_world_never_faults_even_with_declarations(tmp_path: Path) -> None:
    world = world_of(
        tmp_path, ("invoices.yaml", INVOICES + "faults:\n  - {tool: payments_schedule, kind: transient}\n")
    )
    assert world.faults == (FaultSpec(tool="payments_schedule", kind="transient"),)
    assert call_tool(world, "payments_schedule", PAY, 0).fault is None


def test_probability_draws_are_seeded_by_task_and_run(tmp_path: Path) -> None:
    spec = FaultSpec(tool="invoices_lookup", kind="transient", probability=0.5)

    def pattern(task_id: str, run: int) -> list[bool]:
        world = armed(world_of(tmp_path, ("invoices.yaml", INVOICES)), spec, task_id=task_id, run=run)
        calls = [call_tool(world, "invoices_lookup", {"vendor_id": "V-1", "number": "N-1"}, i) for i in range(16)]
        return [call.fault is not None for call in calls]

    assert pattern("t-1", 0) == pattern("t-1", 0)
    assert any(pattern("t-1", 0)) and not all(pattern("t-1", 0))
    assert pattern("t-1", 0) != pattern("t-1", 1) or pattern("t-1", 0) != pattern("t-2", 0)


def test_world_faults_are_digested_only_when_present(tmp_path: Path) -> None:
    plain = world_of(tmp_path / "a", ("invoices.yaml", INVOICES))
    same = world_of(tmp_path / "b", ("invoices.yaml", INVOICES + "faults: []\n"))
    faulty = world_of(
        tmp_path / "c", ("invoices.yaml", INVOICES + "faults:\n  - {tool: payments_*, kind: transient}\n")
    )
    assert plain.digest() == same.digest()
    assert faulty.digest() != plain.digest()
    assert faulty.copy().faults == faulty.faults


def test_world_faults_merge_across_files_in_order(tmp_path: Path) -> None:
    world = world_of(
        tmp_path,
        ("a.yaml", "faults:\n  - {tool: files_*, kind: transient}\n"),
        ("b.yaml", INVOICES + "faults:\n  - {tool: payments_schedule, kind: timeout_after_commit, call: 1}\n"),
    )
    assert [spec.tool for spec in world.faults] == ["files_*", "payments_schedule"]


def test_a_bad_world_fault_is_one_line_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        world_of(tmp_path, ("invoices.yaml", INVOICES + "faults:\n  - {tool: payments_schedule, kind: flaky}\n"))
    line = info.value.one_line()
    assert line.startswith(f"{tmp_path / 'world' / 'invoices.yaml'}: faults.0.kind: ")
    assert "\n" not in line


@pytest.mark.parametrize("value", ["0", "false", "''", "{}"])
def test_a_world_faults_value_that_is_not_a_list_is_one_line(tmp_path: Path, value: str) -> None:
    with pytest.raises(InputError) as info:
        world_of(tmp_path, ("invoices.yaml", INVOICES + f"faults: {value}\n"))
    assert info.value.one_line() == f"{tmp_path / 'world' / 'invoices.yaml'}: faults: Input should be a valid list"


def test_a_declared_tool_honours_faults(tmp_path: Path) -> None:
    world = armed(
        world_of(tmp_path, ("tools/crm.yaml", FIND_CONTACT_TOOL)), FaultSpec(tool="crm_find_contact", kind="transient")
    )
    call = call_tool(world, "crm_find_contact", {"email": "a@example.com"}, 0)
    assert (call.fault, call.error) == ("transient", FAULT_ERRORS["transient"])


def test_a_fault_naming_no_offered_tool_is_refused_at_record(tmp_path: Path) -> None:
    # A typo in `tool` would otherwise never fire, and the golden would be blessed as if it had met a failure.
    from ratchet.goldens.tasks import Task

    world = world_of(tmp_path, ("invoices.yaml", INVOICES))
    typo = Task(
        id="pay-1", prompt="Pay N-1", skill="pay", faults=[FaultSpec(tool="paymnts_schedule", kind="transient")]
    )
    with pytest.raises(InputError) as caught:
        FaultPlan.recording(typo, world)
    assert str(caught.value) == (
        "task pay-1: fault tool 'paymnts_schedule' matches no tool the task is offered: check its name "
        "(a pattern such as payments_* covers a pack)"
    )
    fine = Task(id="pay-2", prompt="Pay N-1", skill="pay", faults=[FaultSpec(tool="payments_*", kind="transient")])
    assert FaultPlan.recording(fine, world).faults == tuple(fine.faults)


def test_a_world_fault_naming_no_offered_tool_is_refused_at_record(tmp_path: Path) -> None:
    from ratchet.goldens.tasks import Task

    world = world_of(tmp_path, ("invoices.yaml", INVOICES + "faults:\n  - {tool: 'github_*', kind: transient}\n"))
    with pytest.raises(InputError) as caught:
        FaultPlan.recording(Task(id="pay-1", prompt="Pay N-1", skill="pay"), world)
    assert str(caught.value) == (
        "world fault tool 'github_*' matches no tool the world offers: check its name "
        "(a pattern such as payments_* covers a pack)"
    )
