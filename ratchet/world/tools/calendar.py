"""calendar: acme's shared calendars, keyed by the owner's email address.

World shape: `calendar.working_hours` = {start: "HH:MM", end: "HH:MM"} and
`calendar.calendars.<email>` = [{id, title, date, start, end, attendees: [email], status}], where
status is `confirmed` or `hold` (a placeholder someone parked). Creating an event is a `write`,
an invitation is a `send`, and cancelling deletes the event, so it is a `destroy`.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

_CALENDAR = Param("string", "Calendar owner's email address, e.g. dana.kim@example.com")
_DATE = Param("string", "Day, YYYY-MM-DD")
_STEP_MINUTES = 30


def _minutes(clock: str) -> int:
    try:
        hours, minutes = clock.split(":")
        value = int(hours) * 60 + int(minutes)
    except ValueError:
        raise ToolFailure(f"time must be HH:MM, got {clock!r}") from None
    if not 0 <= value < 24 * 60:
        raise ToolFailure(f"time must be HH:MM, got {clock!r}")
    return value


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _day(date: str) -> str:
    try:
        return dt.date.fromisoformat(date).isoformat()
    except ValueError:
        raise ToolFailure(f"date must be YYYY-MM-DD, got {date!r}") from None


def _calendars(ctx: ToolContext) -> dict[str, list[dict[str, Any]]]:
    calendars: dict[str, list[dict[str, Any]]] = ctx.world.section("calendar").setdefault("calendars", {})
    return calendars


def _events(ctx: ToolContext, owner: str) -> list[dict[str, Any]]:
    calendars = _calendars(ctx)
    if owner not in calendars:
        raise ToolFailure(f"no calendar for {owner}")
    return calendars[owner]


def _hours(ctx: ToolContext) -> tuple[int, int]:
    hours = ctx.world.section("calendar").get("working_hours", {})
    return _minutes(str(hours.get("start", "09:00"))), _minutes(str(hours.get("end", "17:00")))


def _list_events(ctx: ToolContext, args: dict[str, Any]) -> Any:
    date = _day(args["date"])
    rows = sorted(
        (e for e in _events(ctx, args["calendar"]) if e.get("date") == date), key=lambda e: str(e.get("start"))
    )
    view = [{k: e.get(k) for k in ("id", "title", "start", "end", "attendees", "status")} for e in rows]
    return {"calendar": args["calendar"], "date": date, "events": view}


def _find_free_slots(ctx: ToolContext, args: dict[str, Any]) -> Any:
    date = _day(args["date"])
    duration = args["duration_minutes"]
    if not 5 <= duration <= 8 * 60:
        raise ToolFailure("duration_minutes must be between 5 and 480")
    owners = args["calendars"]
    if not owners or not all(isinstance(o, str) for o in owners):
        raise ToolFailure("calendars must be a non-empty list of email addresses")
    busy: list[tuple[int, int]] = []
    for owner in owners:
        for event in _events(ctx, owner):
            if event.get("date") == date:
                busy.append((_minutes(str(event["start"])), _minutes(str(event["end"]))))
    open_at, close_at = _hours(ctx)
    slots = []
    for start in range(open_at, close_at - duration + 1, _STEP_MINUTES):
        end = start + duration
        if all(end <= b_start or start >= b_end for b_start, b_end in busy):
            slots.append({"start": _clock(start), "end": _clock(end)})
    return {"date": date, "duration_minutes": duration, "slots": slots}


def _create_event(ctx: ToolContext, args: dict[str, Any]) -> Any:
    owner, date = args["calendar"], _day(args["date"])
    events = _events(ctx, owner)
    start = _minutes(args["start"])
    end = start + args["duration_minutes"]
    if args["duration_minutes"] <= 0 or end > 24 * 60:
        raise ToolFailure("duration_minutes must be positive and end the same day")
    attendees = [a for a in args["attendees"] if isinstance(a, str)]
    if not attendees or any("@" not in a for a in attendees):
        raise ToolFailure("attendees must be a non-empty list of email addresses")
    before = [dict(e) for e in events]
    section = ctx.world.section("calendar")
    number = int(section.get("next_event_number", 1))
    section["next_event_number"] = number + 1
    event_id = f"evt-{number:04d}"
    event = {
        "id": event_id,
        "title": args["title"],
        "date": date,
        "start": _clock(start),
        "end": _clock(end),
        "attendees": attendees,
        "status": "confirmed",
    }
    events.append(event)
    ctx.changes.append(change(f"calendar.calendars.{owner}", before, events))
    return dict(event)


def _find_event(ctx: ToolContext, owner: str, event_id: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    events = _events(ctx, owner)
    for event in events:
        if event.get("id") == event_id:
            return events, event
    raise ToolFailure(f"event {event_id} not found on {owner}'s calendar")


def _send_invite(ctx: ToolContext, args: dict[str, Any]) -> Any:
    _, event = _find_event(ctx, args["calendar"], args["event_id"])
    outbox = ctx.world.section("calendar").setdefault("invites", [])
    before = list(outbox)
    recipients = [a for a in event.get("attendees", []) if a != args["calendar"]]
    outbox.append({"event_id": event["id"], "from": args["calendar"], "to": recipients, "message": args["message"]})
    ctx.changes.append(change("calendar.invites", before, outbox))
    return {"event_id": event["id"], "sent_to": recipients}


def _cancel_event(ctx: ToolContext, args: dict[str, Any]) -> Any:
    events, event = _find_event(ctx, args["calendar"], args["event_id"])
    before = [dict(e) for e in events]
    events.remove(event)
    ctx.changes.append(change(f"calendar.calendars.{args['calendar']}", before, events))
    return {"event_id": event["id"], "cancelled": True}


TOOLS = [
    Tool(
        "calendar_list_events",
        "read",
        "List the events on one person's calendar for a day.",
        {"calendar": _CALENDAR, "date": _DATE},
        _list_events,
        "calendar",
    ),
    Tool(
        "calendar_find_free_slots",
        "read",
        "Start times (every 30 minutes, within working hours) when all the given calendars are free.",
        {
            "calendars": Param("array", "Email addresses whose calendars must all be free"),
            "date": _DATE,
            "duration_minutes": Param("integer", "Meeting length in minutes"),
        },
        _find_free_slots,
        "calendar",
    ),
    Tool(
        "calendar_create_event",
        "write",
        "Create a confirmed event on a calendar.",
        {
            "calendar": _CALENDAR,
            "title": Param("string", "Event title"),
            "date": _DATE,
            "start": Param("string", "Start time, HH:MM (UTC)"),
            "duration_minutes": Param("integer", "Length in minutes"),
            "attendees": Param("array", "Attendee email addresses, organizer included"),
        },
        _create_event,
        "calendar",
    ),
    Tool(
        "calendar_send_invite",
        "send",
        "Email the invitation for an event to its attendees.",
        {
            "calendar": _CALENDAR,
            "event_id": Param("string", "Event id"),
            "message": Param("string", "Note to the attendees"),
        },
        _send_invite,
        "calendar",
    ),
    Tool(
        "calendar_cancel_event",
        "destroy",
        "Delete an event from a calendar (cannot be undone).",
        {"calendar": _CALENDAR, "event_id": Param("string", "Event id")},
        _cancel_event,
        "calendar",
    ),
]
