"""clock: the frozen time every run sees."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratchet.world.tools.base import Tool, ToolContext


def _now(ctx: ToolContext, args: dict[str, Any]) -> Any:
    moment = dt.datetime.fromisoformat(ctx.world.frozen_time.replace("Z", "+00:00"))
    return {"now": ctx.world.frozen_time, "date": moment.date().isoformat(), "weekday": moment.strftime("%A")}


TOOLS = [Tool("clock_now", "read", "The current date and time (UTC).", {}, _now)]
