"""expenses: acme's expense policy and the reimbursement system.

World shape: `expenses.policy` = {limits: {category: USD}, receipt_required_over, approval_threshold,
finance_approver}; `expenses.employees.<email>` = {name, manager, cost_center};
`expenses.reports` = submitted reports. Submitting a report commits company money to a
reimbursement, so it is a `spend`.
"""

from __future__ import annotations

import copy
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

_EMPLOYEE = Param("string", "Employee email address, e.g. li.wei@example.com")


def _employee(ctx: ToolContext, email: str) -> dict[str, Any]:
    employees = ctx.world.section("expenses").get("employees", {})
    if email not in employees:
        raise ToolFailure(f"no employee record for {email}")
    record: dict[str, Any] = employees[email]
    return record


def _get_policy(ctx: ToolContext, args: dict[str, Any]) -> Any:
    employee = _employee(ctx, args["employee"])
    policy = copy.deepcopy(ctx.world.section("expenses").get("policy", {}))
    policy.update(
        {
            "employee": args["employee"],
            "manager": employee.get("manager"),
            "cost_center": employee.get("cost_center"),
        }
    )
    return ctx.read("expenses.policy", policy)


def _submit_report(ctx: ToolContext, args: dict[str, Any]) -> Any:
    employee = _employee(ctx, args["employee"])
    if "@" not in args["approver"]:
        raise ToolFailure(f"approver must be an email address, got {args['approver']!r}")
    lines = args["lines"]
    if not lines:
        raise ToolFailure("a report needs at least one line")
    total = float(args["total"])
    if total <= 0:
        raise ToolFailure("total must be positive")
    section = ctx.world.data.setdefault("expenses", {})
    reports = section.setdefault("reports", [])
    before = copy.deepcopy(reports)
    report_id = f"EXP-{int(section.get('next_report_number', 1)):05d}"
    section["next_report_number"] = int(section.get("next_report_number", 1)) + 1
    reports.append(
        {
            "id": report_id,
            "employee": args["employee"],
            "cost_center": employee.get("cost_center"),
            "approver": args["approver"],
            "total": round(total, 2),
            "lines": list(lines),
            "state": "pending_approval",
        }
    )
    ctx.changes.append(change("expenses.reports", before, reports))
    return {"report_id": report_id, "state": "pending_approval", "approver": args["approver"], "total": round(total, 2)}


TOOLS = [
    Tool(
        "expenses_get_policy",
        "read",
        "The expense policy that applies to an employee: per-line category limits, receipt rule, approvers.",
        {"employee": _EMPLOYEE},
        _get_policy,
        "expenses",
    ),
    Tool(
        "expenses_submit_report",
        "spend",
        "Submit an expense report for reimbursement; it goes to the approver and is then paid out.",
        {
            "employee": _EMPLOYEE,
            "approver": Param("string", "Approver email address"),
            "total": Param("number", "Report total in USD"),
            "lines": Param("array", "The expense lines claimed, one string each"),
        },
        _submit_report,
        "expenses",
    ),
]
