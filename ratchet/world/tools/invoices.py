"""invoices: acme accounts payable. Approved vendors, invoices on the books, scheduled payments.

World shape: `invoices.vendors` = [{id, name, currency, approval_limit, approver}],
`invoices.recorded` = [{vendor_id, number, ...}], `invoices.payments` = [{...}].
Recording an invoice is a `write`; scheduling a payment moves money, so it is a `spend`.
"""

from __future__ import annotations

from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

_VENDOR_ID = Param("string", "Vendor id from invoices_find_vendor, e.g. V-1001")
_NUMBER = Param("string", "The vendor's invoice number")
_STATUSES = ("approved", "pending_approval", "on_hold")


def _section(ctx: ToolContext) -> dict[str, Any]:
    section: dict[str, Any] = ctx.world.data.setdefault("invoices", {})
    return section


def _vendor_by_id(ctx: ToolContext, vendor_id: str) -> dict[str, Any]:
    for vendor in _section(ctx).get("vendors", []):
        if vendor.get("id") == vendor_id:
            found: dict[str, Any] = vendor
            return found
    raise ToolFailure(f"no vendor with id {vendor_id!r}")


def _find_vendor(ctx: ToolContext, args: dict[str, Any]) -> Any:
    wanted = " ".join(args["name"].lower().split()).rstrip(".")
    for vendor in _section(ctx).get("vendors", []):
        if " ".join(str(vendor.get("name", "")).lower().split()).rstrip(".") == wanted:
            return dict(vendor)
    raise ToolFailure(f"no approved vendor named {args['name']!r}")


def _recorded(ctx: ToolContext, vendor_id: str, number: str) -> dict[str, Any] | None:
    for invoice in _section(ctx).get("recorded", []):
        if invoice.get("vendor_id") == vendor_id and invoice.get("number") == number:
            found: dict[str, Any] = invoice
            return found
    return None


def _lookup(ctx: ToolContext, args: dict[str, Any]) -> Any:
    _vendor_by_id(ctx, args["vendor_id"])
    invoice = _recorded(ctx, args["vendor_id"], args["number"])
    if invoice is None:
        return {"found": False, "number": args["number"]}
    # Whether a payment went out is what a caller checks before retrying one whose reply was lost.
    scheduled = any(
        p.get("vendor_id") == args["vendor_id"] and p.get("invoice_number") == args["number"]
        for p in _section(ctx).get("payments", [])
    )
    return {
        "found": True,
        "number": args["number"],
        "status": invoice.get("status"),
        "total": invoice.get("total"),
        "payment_scheduled": scheduled,
    }


def _record(ctx: ToolContext, args: dict[str, Any]) -> Any:
    _vendor_by_id(ctx, args["vendor_id"])
    if _recorded(ctx, args["vendor_id"], args["number"]) is not None:
        raise ToolFailure(f"invoice {args['number']} from {args['vendor_id']} is already recorded")
    recorded = _section(ctx).setdefault("recorded", [])
    before = list(recorded)
    entry = {
        key: args.get(key)
        for key in ("vendor_id", "number", "invoice_date", "due_date", "currency", "total", "status", "note")
    }
    recorded.append(entry)
    ctx.changes.append(change("invoices.recorded", before, recorded))
    return {"recorded": True, "id": f"AP-{len(recorded):04d}", "status": args["status"]}


def _schedule(ctx: ToolContext, args: dict[str, Any]) -> Any:
    vendor = _vendor_by_id(ctx, args["vendor_id"])
    invoice = _recorded(ctx, args["vendor_id"], args["invoice_number"])
    if invoice is None:
        raise ToolFailure(f"invoice {args['invoice_number']} is not recorded; record it first")
    if invoice.get("status") != "approved":
        raise ToolFailure(f"invoice {args['invoice_number']} is {invoice.get('status')}, not approved")
    if args["amount"] <= 0:
        raise ToolFailure("amount must be positive")
    if args["currency"] != vendor.get("currency"):
        raise ToolFailure(f"{vendor.get('name')} is paid in {vendor.get('currency')}, not {args['currency']}")
    payments = _section(ctx).setdefault("payments", [])
    before = list(payments)
    payment = {key: args[key] for key in ("vendor_id", "invoice_number", "amount", "currency", "pay_on")}
    payments.append(payment)
    ctx.changes.append(change("invoices.payments", before, payments))
    return {"scheduled": True, "id": f"PAY-{len(payments):04d}", "pay_on": args["pay_on"]}


TOOLS = [
    Tool(
        "invoices_find_vendor",
        "read",
        "Look up an approved vendor by name: id, billing currency, approval limit and approver.",
        {"name": Param("string", "Vendor name as printed on the invoice")},
        _find_vendor,
        "invoices",
    ),
    Tool(
        "invoices_lookup",
        "read",
        "Whether an invoice from this vendor is already on the books, its status, and whether a payment is scheduled.",
        {"vendor_id": _VENDOR_ID, "number": _NUMBER},
        _lookup,
        "invoices",
    ),
    Tool(
        "invoices_record",
        "write",
        "Record an invoice in accounts payable.",
        {
            "vendor_id": _VENDOR_ID,
            "number": _NUMBER,
            "invoice_date": Param("string", "Invoice date, YYYY-MM-DD", required=False),
            "due_date": Param("string", "Due date, YYYY-MM-DD", required=False),
            "currency": Param("string", "ISO currency code the invoice is billed in"),
            "total": Param("number", "Invoice total including VAT"),
            "status": Param("string", "approved, pending_approval or on_hold", enum=_STATUSES),
            "note": Param("string", "Why the invoice has this status", required=False),
        },
        _record,
        "invoices",
    ),
    Tool(
        "payments_schedule",
        "spend",
        "Schedule a bank payment of an approved invoice to the vendor.",
        {
            "vendor_id": _VENDOR_ID,
            "invoice_number": _NUMBER,
            "amount": Param("number", "Amount to pay"),
            "currency": Param("string", "ISO currency code of the payment"),
            "pay_on": Param("string", "Payment date, YYYY-MM-DD"),
        },
        _schedule,
        "invoices",
    ),
]
