"""Tool packs over the mocked world. Every tool declares its effect: read|write|send|spend|destroy.

`call_tool` never raises for agent mistakes (unknown tool, bad arguments, not found): the
ToolCall carries the error and the agent sees it, as it would from a real API. A crash inside
a tool is a bug in the pack and surfaces as ToolError, except the kinds of crash that world data
of the wrong shape causes (a TypeError, AttributeError, KeyError or ValueError in a tool whose
section came from world files): load_world checks the top-level shape of each section, so such a
crash is deeper data a user wrote, and is an InputError naming the files to fix.

The world also carries the tools a team declares in YAML (world.declared_tools, from
<world>/tools/*.yaml: ratchet/world/tools/declared.py); they are offered after the shipped packs,
whose order and specs stay as they are (the bench's cache keys cover the tool specs).

A World armed with seeded faults (ratchet.world.faults, docs/faults.md) fails some calls: once the
arguments fit, the call counts as a call of its tool and may meet a fault. A transient or
timeout_before_commit call never runs the tool; a timeout_after_commit call runs it and the agent
gets the timeout error instead of the result. Declared tools are faulted the same way.
"""

from __future__ import annotations

import copy
from typing import Any

from ratchet.core.chat import ToolSpec
from ratchet.core.errors import InputError, RatchetError, ToolError
from ratchet.goldens.faults import FAULT_ERRORS
from ratchet.goldens.trace import ToolCall
from ratchet.world.state import World
from ratchet.world.tools import (
    calendar,
    clock,
    email,
    expenses,
    files,
    fx,
    github,
    invoices,
    news,
    registry,
    releases,
    tracker,
)
from ratchet.world.tools.base import Param, Tool, ToolContext, ToolFailure

ALL_TOOLS: dict[str, Tool] = {
    t.name: t
    for pack in (files, github, fx, email, clock, calendar, expenses, releases, invoices, news, registry, tracker)
    for t in pack.TOOLS
}

__all__ = ["ALL_TOOLS", "Param", "Tool", "ToolContext", "ToolFailure", "call_tool", "offered_tools", "tool_specs"]


def offered_tools(world: World) -> list[Tool]:
    """Shipped tools whose world section exists, in a fixed order, then the world's declared tools."""
    shipped = [t for t in ALL_TOOLS.values() if t.needs is None or t.needs in world.data]
    return [*shipped, *world.declared_tools]


def tool_specs(world: World) -> list[ToolSpec]:
    """What the agent is offered."""
    return [t.spec() for t in offered_tools(world)]


def call_tool(world: World, name: str, arguments: dict[str, Any], index: int) -> ToolCall:
    """Run one mocked tool call against the world and record what it did."""
    args = copy.deepcopy(arguments) if isinstance(arguments, dict) else {}
    offered_by_name = {t.name: t for t in offered_tools(world)}
    tool = offered_by_name.get(name)
    if tool is None:
        offered = ", ".join(offered_by_name)
        return ToolCall(
            index=index, name=name, arguments=args, effect="read", error=f"unknown tool {name!r}; available: {offered}"
        )
    try:
        return _run(world, tool, args, index)
    except RatchetError:  # a declared tool names its own file and line (world data it cannot pass through)
        raise
    except (TypeError, AttributeError, KeyError, ValueError) as exc:
        files = world.sources.get(tool.needs or "", ())
        if not files:
            raise ToolError(f"tool {name} crashed: {type(exc).__name__}: {exc}") from exc
        also = f" (also merged from {', '.join(files[1:])})" if len(files) > 1 else ""
        raise InputError(
            f"world data for tool {name} has an unexpected shape{also}: {type(exc).__name__}: {exc}: "
            f"fix section {tool.needs!r} to match the shipped world files",
            path=files[0],
        ) from exc
    except Exception as exc:  # a bug in the pack, not the agent's mistake
        raise ToolError(f"tool {name} crashed: {type(exc).__name__}: {exc}") from exc


def _run(world: World, tool: Tool, args: dict[str, Any], index: int) -> ToolCall:
    """The call once the tool is known: its arguments checked, its seeded fault met, then run."""
    ctx = ToolContext(world=world, index=index)
    try:
        clean = tool.check_arguments(args)
    except ToolFailure as exc:  # the agent's own mistake: never faulted, not a call of the tool
        return ToolCall(index=index, name=tool.name, arguments=args, effect=tool.effect, error=str(exc))
    fault = world.injector.next_call(tool.name) if world.injector is not None else None
    call = ToolCall(index=index, name=tool.name, arguments=args, effect=tool.effect, fault=fault)
    if fault is not None and fault != "timeout_after_commit":
        return call.model_copy(update={"error": FAULT_ERRORS[fault]})  # refused before anything happened
    try:
        result = tool.run(ctx, clean)
    except ToolFailure as exc:
        if fault is None:
            return call.model_copy(update={"error": str(exc)})
        result = {"error": str(exc)}  # the refusal was the reply the timeout lost
    if fault is not None:  # it ran: the changes happened, the agent gets the timeout, not `result`
        return call.model_copy(
            update={"result": copy.deepcopy(result), "error": FAULT_ERRORS[fault], "state_changes": ctx.changes}
        )
    return call.model_copy(update={"result": copy.deepcopy(result), "state_changes": ctx.changes})
