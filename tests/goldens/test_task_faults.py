"""`faults:` on a task in tasks.yaml: parsed into FaultSpecs, refused with the task's line when wrong,
and the parsed-file cache answers FaultSpecs too (not the raw mappings it stored)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.core.errors import TaskFileError
from ratchet.goldens.faults import FaultSpec
from ratchet.goldens.tasks import load_tasks, parse_tasks
from ratchet.store.parsed import ParsedCache

TASKS = """\
schema_version: 1
tasks:
  - id: plain-01
    prompt: pay the invoice
    skill: pay
  - id: pay-01
    prompt: pay the invoice
    skill: pay
    faults:
      - {tool: payments_schedule, kind: transient, call: 1}
      - {tool: "invoices_*", kind: timeout_after_commit, probability: 0.25}
"""
WANT = (
    FaultSpec(tool="payments_schedule", kind="transient", call=1),
    FaultSpec(tool="invoices_*", kind="timeout_after_commit", probability=0.25),
)


def test_faults_parse_in_order_and_default_to_none() -> None:
    plain, faulty = parse_tasks(TASKS, source="tasks.yaml")
    assert (plain.faults, faulty.faults) == ((), WANT)


def test_the_parsed_cache_answers_fault_specs(tmp_path: Path) -> None:
    path = tmp_path / "tasks.yaml"
    path.write_text(TASKS, encoding="utf-8")
    cache = ParsedCache(tmp_path / "home")
    cold = load_tasks(path, cache)
    warm = load_tasks(path, cache)
    assert warm == cold
    assert warm[1].faults == WANT and all(isinstance(spec, FaultSpec) for spec in warm[1].faults)


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("{tool: payments_schedule, kind: flaky}", "tasks.1.faults.0.kind: Input should be"),
        ("{tool: payments_schedule, kind: transient, call: 0}", "tasks.1.faults.0.call: Input should be greater"),
        ("{tool: payments_schedule, kind: transient, probability: 0}", "tasks.1.faults.0.probability: Input should"),
        ("{tool: payments_schedule, kind: transient, when: later}", "tasks.1.faults.0.when: Extra inputs"),
        (
            "{tool: payments_schedule, kind: transient, call: true}",
            "tasks.1.faults.0.call: Input should be a valid int",
        ),
        ("{tool: payments_schedule, kind: transient, call: 1.0}", "tasks.1.faults.0.call: Input should be a valid int"),
        ("{tool: payments_schedule, kind: transient, probability: true}", "tasks.1.faults.0.probability: Input should"),
    ],
)
def test_a_bad_fault_is_one_line_at_its_task(fault: str, message: str) -> None:
    text = TASKS.replace("{tool: payments_schedule, kind: transient, call: 1}", fault)
    with pytest.raises(TaskFileError) as info:
        parse_tasks(text, source="tasks.yaml")
    assert info.value.one_line().startswith(f"tasks.yaml:6: {message}")
