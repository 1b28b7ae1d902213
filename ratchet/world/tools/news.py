"""news: the research team's news feed, tracked market figures and the weekly digest.

World shape: `news.stories.<topic>` = [{id, headline, source, date}],
`news.metrics.<metric>` = {label, unit, value, week_ago}, `news.digest` = [published briefs].
Headlines get corrected and figures move, so both are volatile facts; `week_ago` is history.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure


def _section(ctx: ToolContext) -> dict[str, Any]:
    section: dict[str, Any] = ctx.world.data.setdefault("news", {})
    return section


def _day(text: str, name: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ToolFailure(f"{name} must be YYYY-MM-DD, got {text!r}") from None


def _search(ctx: ToolContext, args: dict[str, Any]) -> Any:
    topic = args["topic"]
    stories = _section(ctx).get("stories", {})
    if topic not in stories:
        raise ToolFailure(f"unknown topic {topic!r}; the feed covers: {', '.join(sorted(stories))}")
    until = _day(args.get("until") or ctx.world.frozen_time[:10], "until")
    days = args.get("days", 7)
    if not 1 <= days <= 31:
        raise ToolFailure("days must be between 1 and 31")
    since = until - dt.timedelta(days=days)
    found = []
    for story in stories[topic]:
        if since < _day(str(story["date"]), "date") <= until:
            headline = ctx.read(f"news.stories.{topic}.{story['id']}.headline", story["headline"])
            found.append(
                {"id": story["id"], "headline": headline, "source": story.get("source"), "date": story["date"]}
            )
    found.sort(key=lambda s: (s["date"], s["id"]), reverse=True)
    return {"topic": topic, "since": since.isoformat(), "until": until.isoformat(), "stories": found}


def _get_metric(ctx: ToolContext, args: dict[str, Any]) -> Any:
    name = args["metric"]
    metrics = _section(ctx).get("metrics", {})
    if name not in metrics:
        raise ToolFailure(f"unknown metric {name!r}")
    metric = metrics[name]
    value = ctx.read(f"news.metrics.{name}.value", metric["value"])
    return {
        "metric": name,
        "label": metric.get("label", name),
        "unit": metric.get("unit", ""),
        "value": value,
        "week_ago": metric["week_ago"],
    }


def _publish(ctx: ToolContext, args: dict[str, Any]) -> Any:
    if not args["body"].strip():
        raise ToolFailure("refusing to publish an empty brief")
    digest = _section(ctx).setdefault("digest", [])
    before = list(digest)
    digest.append({"title": args["title"], "body": args["body"]})
    ctx.changes.append(change("news.digest", before, digest))
    return {"published": True, "url": f"https://wiki.example.com/research/brief-{len(digest)}"}


TOOLS = [
    Tool(
        "news_search",
        "read",
        "Stories on a tracked topic published in the `days` days up to and including `until`, newest first.",
        {
            "topic": Param("string", "Topic id from the watchlist, e.g. grid-storage"),
            "until": Param("string", "Last day of the window, YYYY-MM-DD (default today)", required=False),
            "days": Param("integer", "Window length in days (default 7)", required=False),
        },
        _search,
        "news",
    ),
    Tool(
        "news_get_metric",
        "read",
        "The current value of a tracked market figure and its value a week ago.",
        {"metric": Param("string", "Metric id from the watchlist, e.g. battery-pack-price")},
        _get_metric,
        "news",
    ),
    Tool(
        "news_publish_brief",
        "send",
        "Publish a brief to the acme research digest; every subscriber is notified.",
        {"title": Param("string", "Brief title"), "body": Param("string", "Brief text (Markdown)")},
        _publish,
        "news",
    ),
]
