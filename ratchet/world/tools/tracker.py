"""tracker: acme's task tracker. Projects with a lead and a mailing list; tasks with an assignee.

World shape: `tracker.projects.<id>` = {name, lead, mailing_list}, `tracker.tasks` = [...].
Assignees must be people of the org (`people[].handle`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from ratchet.world.state import change
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure


def _section(ctx: ToolContext) -> dict[str, Any]:
    section: dict[str, Any] = ctx.world.data.setdefault("tracker", {})
    return section


def _project(ctx: ToolContext, project: str) -> dict[str, Any]:
    projects = _section(ctx).get("projects", {})
    if project not in projects:
        raise ToolFailure(f"unknown project {project!r}; projects: {', '.join(sorted(projects))}")
    found: dict[str, Any] = projects[project]
    return found


def _get_project(ctx: ToolContext, args: dict[str, Any]) -> Any:
    return {"id": args["project"], **_project(ctx, args["project"])}


def _create_task(ctx: ToolContext, args: dict[str, Any]) -> Any:
    _project(ctx, args["project"])
    handles = {p.get("handle") for p in ctx.world.data.get("people", []) if isinstance(p, dict)}
    assignee = args["assignee"].lstrip("@")
    if assignee not in handles:
        raise ToolFailure(f"no such person: @{assignee}")
    due = args.get("due")
    if due is not None:
        try:
            dt.date.fromisoformat(due)
        except ValueError:
            raise ToolFailure(f"due must be YYYY-MM-DD, got {due!r}") from None
    tasks = _section(ctx).setdefault("tasks", [])
    before = list(tasks)
    key = f"{args['project'].upper()}-{len(tasks) + 1}"
    tasks.append({"key": key, "project": args["project"], "title": args["title"], "assignee": assignee, "due": due})
    ctx.changes.append(change("tracker.tasks", before, tasks))
    return {"created": True, "key": key, "assignee": assignee, "due": due}


TOOLS = [
    Tool(
        "tracker_get_project",
        "read",
        "A tracker project: its name, lead and mailing list.",
        {"project": Param("string", "Project id, e.g. sync-revamp")},
        _get_project,
        "tracker",
    ),
    Tool(
        "tracker_create_task",
        "write",
        "Create a task in a project and assign it to a person.",
        {
            "project": Param("string", "Project id"),
            "title": Param("string", "What has to be done"),
            "assignee": Param("string", "Handle of the person who owns it, e.g. raj-patel"),
            "due": Param("string", "Due date, YYYY-MM-DD", required=False),
        },
        _create_task,
        "tracker",
    ),
]
