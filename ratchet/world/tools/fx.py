"""fx: reference exchange rates by date. Rates are volatile facts and are published on
business days only, so a Saturday or Sunday has no rate (the edge case skills must handle).

World shape: `fx.rates.<YYYY-MM-DD>.<CCY>` = USD per one unit of CCY.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure


def _usd_per(ctx: ToolContext, day: dict[str, Any], date: str, ccy: str) -> float:
    if ccy == "USD":
        return 1.0
    if ccy not in day:
        raise ToolFailure(f"no {ccy} rate published for {date}")
    return float(ctx.read(f"fx.rates.{date}.{ccy}", day[ccy]))


def _get_rate(ctx: ToolContext, args: dict[str, Any]) -> Any:
    base, quote, date = args["base"].upper(), args["quote"].upper(), args["date"]
    try:
        weekday = dt.date.fromisoformat(date).strftime("%A")
    except ValueError:
        raise ToolFailure(f"date must be YYYY-MM-DD, got {date!r}") from None
    rates = ctx.world.section("fx").get("rates", {})
    if date not in rates:
        if weekday in ("Saturday", "Sunday"):
            raise ToolFailure(f"no rates are published on weekends ({date} is a {weekday})")
        raise ToolFailure(f"no rates published for {date}")
    day = rates[date]
    rate = _usd_per(ctx, day, date, base) / _usd_per(ctx, day, date, quote)
    return {"base": base, "quote": quote, "date": date, "rate": round(rate, 6)}


TOOLS = [
    Tool(
        "fx_get_rate",
        "read",
        "Reference exchange rate on a date: how many `quote` units one `base` unit buys.",
        {
            "base": Param("string", "ISO currency code converted from, e.g. EUR"),
            "quote": Param("string", "ISO currency code converted to, e.g. USD"),
            "date": Param("string", "Rate date, YYYY-MM-DD (business days only)"),
        },
        _get_rate,
        needs="fx",
    )
]
