"""email: an outbox. Sending is a `send` effect; the message only lands in world.email.outbox."""

from __future__ import annotations

from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure


def _send(ctx: ToolContext, args: dict[str, Any]) -> Any:
    if "@" not in args["to"]:
        raise ToolFailure(f"not an email address: {args['to']!r}")
    email = ctx.world.data.setdefault("email", {})
    outbox = email.setdefault("outbox", [])
    before = list(outbox)
    message = {"to": args["to"], "subject": args["subject"], "body": args["body"]}
    outbox.append(message)
    ctx.changes.append(change("email.outbox", before, outbox))
    return {"sent": True, "id": f"msg-{len(outbox)}"}


TOOLS = [
    Tool(
        "email_send",
        "send",
        "Send an email from the acme operations mailbox.",
        {
            "to": Param("string", "Recipient address"),
            "subject": Param("string", "Subject line"),
            "body": Param("string", "Plain-text body"),
        },
        _send,
        needs="people",
    )
]
