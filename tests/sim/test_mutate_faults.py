"""R7 (fault handling removed) and the F0 controls over the shipped skills: what the offline injector finds and does."""

from __future__ import annotations

from pathlib import Path

from ratchet.sim.injector import InjectContext, ToolInfo, propose
from ratchet.sim.mutate_faults import f0_candidates, fault_steps
from ratchet.sim.program import parse_program
from ratchet.skills.skill import parse_skill_text

ROOT = Path(__file__).resolve().parents[2]


def _tool(name: str, effect: str) -> ToolInfo:
    return ToolInfo(name, effect, ())


TOOLS = (
    _tool("files_read_file", "read"),
    _tool("invoices_find_vendor", "read"),
    _tool("invoices_lookup", "read"),
    _tool("invoices_record", "write"),
    _tool("payments_schedule", "spend"),
    _tool("email_send", "send"),
    _tool("tracker_get_project", "read"),
    _tool("tracker_create_task", "write"),
)
CONTEXT = InjectContext(tools=TOOLS)


def _skill(name: str) -> str:
    return (ROOT / "skills" / name / "SKILL.md").read_text(encoding="utf-8")


def _calls(text: str, tools: frozenset[str]) -> list[str]:
    body = text.split("\n---\n", 1)[1]
    found: list[str] = []

    def walk(steps: list) -> None:  # type: ignore[type-arg]
        for step in steps:
            found.extend(a.tool for a in step.actions if a.kind == "call")
            walk(step.children)

    walk(parse_program(body, tools).steps)
    return found


def test_the_payment_retry_with_its_check_and_the_recap_retry_are_fault_handling() -> None:
    (pay,) = fault_steps(_skill("invoice-parser"), TOOLS)
    assert (pay.tool, pay.target, pay.checks) == ("payments_schedule", "pay", True)
    (recap,) = fault_steps(_skill("meeting-notes"), TOOLS)
    assert (recap.tool, recap.target, recap.checks) == ("email_send", "sent", False)


def test_a_fallback_call_with_other_arguments_is_not_a_retry() -> None:
    """meeting-notes re-files a task for the project lead when the owner is unknown: business logic, not R7."""
    text = _skill("meeting-notes")
    assert "If `$task.error`" in text
    assert [s.target for s in fault_steps(text, TOOLS)] == ["sent"]
    assert fault_steps(_skill("fx-expense-converter"), TOOLS) == []


def test_r7_deletes_the_check_and_retry_or_only_the_check_and_is_seeded() -> None:
    text = _skill("invoice-parser")
    tools = frozenset(t.name for t in TOOLS)
    first = propose(text, name="invoice-parser", edit_type="R7", variant=1, attempt=1, context=CONTEXT)
    assert first is not None
    assert first == propose(text, name="invoice-parser", edit_type="R7", variant=1, attempt=1, context=CONTEXT)
    second = propose(
        text,
        name="invoice-parser",
        edit_type="R7",
        variant=2,
        attempt=1,
        context=CONTEXT,
        exclude=frozenset({first.key}),
    )
    assert second is not None
    by_kind = {p.key.split("|")[1]: p for p in (first, second)}
    assert set(by_kind) == {"delete", "blind"}
    before = _calls(text, tools)
    assert before.count("payments_schedule") == 2 and before.count("invoices_lookup") == 2
    deleted = _calls(by_kind["delete"].skill_md, tools)
    assert deleted.count("payments_schedule") == 1 and deleted.count("invoices_lookup") == 1
    assert "    1. If `$pay.error and not $check.payment_scheduled`" in by_kind["delete"].skill_md  # renumbered
    blind = _calls(by_kind["blind"].skill_md, tools)
    assert blind.count("payments_schedule") == 2 and blind.count("invoices_lookup") == 1
    assert "If `$pay.error`: try again: `payments_schedule(" in by_kind["blind"].skill_md
    for proposal in (first, second):
        skill = parse_skill_text(proposal.skill_md, folder=ROOT / "skills" / "invoice-parser", source="x")
        assert skill.name == "invoice-parser"


def test_r7_has_nothing_to_propose_for_a_skill_without_fault_handling() -> None:
    text = _skill("fx-expense-converter")
    assert propose(text, name="fx-expense-converter", edit_type="R7", variant=1, attempt=1, context=CONTEXT) is None


def test_f0_renames_the_failed_calls_variable_or_rewords_the_step_and_keeps_every_call() -> None:
    text = _skill("invoice-parser")
    tools = frozenset(t.name for t in TOOLS)
    (renamed, why), (reworded, _) = f0_candidates(text, TOOLS)
    assert "`$pay_reply`" in renamed and "$pay_on" in renamed and "`$pay`" not in renamed
    assert why.startswith("renames `$pay`")
    assert reworded != text and reworded.count("`") == text.count("`")
    assert _calls(renamed, tools) == _calls(text, tools) == _calls(reworded, tools)
    assert f0_candidates(_skill("fx-expense-converter"), TOOLS) == []
