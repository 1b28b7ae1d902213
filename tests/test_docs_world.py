"""docs/world.md cannot drift from the tool packs: every shipped tool is in it, with its effect and needs.

Why: a team reads that page to write a world for its skills; a tool missing from it, or listed
with the wrong effect, is a tool they cannot plan for (or a side effect they do not expect).
"""

from __future__ import annotations

import re
from pathlib import Path

from ratchet.config.project import DEFAULT_CLOCK
from ratchet.world.state import SECTION_SHAPES
from ratchet.world.tools import ALL_TOOLS

DOC = Path(__file__).resolve().parents[1] / "docs" / "world.md"
ROW = re.compile(r"^\| `(?P<name>[a-z_]+)` \| (?P<effect>[a-z]+) \| (?P<needs>[a-z]+|-) \|", re.MULTILINE)


def _rows() -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[str, str]] = {}
    for match in ROW.finditer(DOC.read_text(encoding="utf-8")):
        assert match["name"] not in rows, f"{match['name']} is listed twice in docs/world.md"
        rows[match["name"]] = (match["effect"], match["needs"])
    return rows


def test_every_shipped_tool_is_documented_with_its_effect_and_needs() -> None:
    rows = _rows()
    shipped = {tool.name: (tool.effect, tool.needs or "-") for tool in ALL_TOOLS.values()}
    missing = sorted(set(shipped) - set(rows))
    assert not missing, f"docs/world.md lacks a row for: {', '.join(missing)}"
    assert {name: rows[name] for name in shipped} == shipped


def test_no_documented_tool_is_gone_from_the_packs() -> None:
    assert sorted(set(_rows()) - set(ALL_TOOLS)) == []


def test_every_section_shape_and_the_default_clock_are_documented() -> None:
    text = DOC.read_text(encoding="utf-8")
    for section in SECTION_SHAPES:
        assert f"| `{section}` |" in text, section
    assert DEFAULT_CLOCK in text


def test_the_own_tools_section_links_to_tools_md() -> None:
    text = DOC.read_text(encoding="utf-8")
    own = text.split("## A team's own mocked tools", 1)
    assert len(own) == 2 and "](tools.md)" in own[1]
