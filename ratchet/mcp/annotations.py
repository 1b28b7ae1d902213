"""A tool's declared effect as MCP tool annotations (hints a harness uses to ask before a call).

The mapping is fixed by effect, so it cannot disagree with what Level 0 treats as a side effect:

    effect   readOnlyHint  destructiveHint  idempotentHint              openWorldHint
    read     true          false            true                        false
    write    false         true             known per tool, else false  false
    send     false         false            false                       false
    spend    false         false            false                       false
    destroy  false         true             known per tool, else false  false

`write` is destructive because MCP's destructiveHint means "may perform destructive updates" (a
write overwrites a file, closes an issue), and a hint that errs is safer erring towards asking.
`send` and `spend` only add (a message, a payment) and are not destructive in MCP's sense, though
neither can be taken back: that is what their effect says, and it travels with every tool in
`_meta["ratchet/effect"]` and in the description's `[effect]` prefix. A mocked world is closed, so
openWorldHint is always false.
"""

from __future__ import annotations

import mcp_types as types

from ratchet.goldens.trace import Effect
from ratchet.world.tools import Tool
from ratchet.world.tools.declared import DeclaredTool

EFFECT_META_KEY = "ratchet/effect"

KNOWN_IDEMPOTENT: frozenset[str] = frozenset(
    {"files_write_file", "github_add_label", "github_assign", "github_close_issue"}
)
"""Shipped non-read tools whose repeated call (same arguments) changes nothing more; a test checks each."""

_DESTRUCTIVE: frozenset[Effect] = frozenset({"write", "destroy"})


def is_idempotent(tool: Tool) -> bool:
    if tool.effect == "read":
        return True
    if isinstance(tool, DeclaredTool):
        return tool.definition.idempotent
    return tool.name in KNOWN_IDEMPOTENT


def annotations_for(tool: Tool) -> types.ToolAnnotations:
    """The MCP annotations of one tool (see the table above)."""
    return types.ToolAnnotations(
        read_only_hint=tool.effect == "read",
        destructive_hint=tool.effect in _DESTRUCTIVE,
        idempotent_hint=is_idempotent(tool),
        open_world_hint=False,
    )
