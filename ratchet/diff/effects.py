"""Which tools act, and how: the world's tools (shipped packs and the base's declared tools, which Ratchet's
MCP server offers with the same effect as annotations) and the harness's own built-in tools.

A skill that names a tool (`email_send`, or its MCP name `mcp__ratchet__email_send`) is read as using
it; the diff reports a newly named tool whose effect is not `read` as an added side-effect action.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ratchet.diff.lexicon.actions import HARNESS_BUILTINS, ActionEffect
from ratchet.world.tools import ALL_TOOLS
from ratchet.world.tools.base import Tool

_MCP_NAME = re.compile(r"^mcp__[\w-]+?__(.+)$")
_IDENTIFIER = re.compile(r"[A-Za-z_][\w-]*")


@dataclass(frozen=True)
class ToolCatalog:
    """Tool name -> declared effect (`read` included, so a known read tool is known not to act)."""

    effects: Mapping[str, ActionEffect | Literal["read"]] = field(default_factory=dict)

    def effect_of(self, name: str) -> ActionEffect | None:
        """The side effect of calling `name` (an MCP name is read by its tool part); None for a read or an unknown name."""
        mcp = _MCP_NAME.match(name)
        effect = self.effects.get(mcp.group(1) if mcp else name)
        return None if effect is None or effect == "read" else effect

    def tools_in(self, text: str) -> list[tuple[str, ActionEffect]]:
        """(name, effect) of every acting tool `text` names, in order, once each."""
        found: dict[str, ActionEffect] = {}
        for match in _IDENTIFIER.finditer(text):
            name = match.group(0)
            effect = self.effect_of(name)
            if effect is not None and name not in found and _is_tool_name(name, text, match.start()):
                found[name] = effect
        return list(found.items())

    def names_in(self, text: str) -> list[str]:
        """Every tool `text` names, read-only ones too, in order, once each, as written (an MCP name whole)."""
        found: list[str] = []
        for match in _IDENTIFIER.finditer(text):
            name = match.group(0)
            mcp = _MCP_NAME.match(name)
            known = (mcp.group(1) if mcp else name) in self.effects
            if known and name not in found and _is_tool_name(name, text, match.start()):
                found.append(name)
        return found


def _is_tool_name(name: str, text: str, start: int) -> bool:
    """A built-in's name ("Write", "Edit") is also an English word: it names the tool only in code or as "the X tool"."""
    if name not in HARNESS_BUILTINS:
        return True
    in_code = text.count("`", 0, start) % 2 == 1
    return in_code or text[start + len(name) : start + len(name) + 5].lower() == " tool"


def tool_catalog(declared: Iterable[Tool] = ()) -> ToolCatalog:
    """The shipped tools, then `declared` (a world's tools/*.yaml), then the harness built-ins."""
    effects: dict[str, ActionEffect | Literal["read"]] = {name: tool.effect for name, tool in ALL_TOOLS.items()}
    effects.update({tool.name: tool.effect for tool in declared})
    effects.update(HARNESS_BUILTINS)
    return ToolCatalog(effects)
