"""A trace's provenance: the tool protocol and Ratchet version it ran under, kept only when known.

Goldens recorded before these fields existed must read and write back byte for byte (they are
committed files a re-bless would otherwise rewrite), so an empty value is left out of the JSON.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import Project, RatchetConfig, TierConfig
from ratchet.core.errors import GoldenError
from ratchet.core.labels import __version__
from ratchet.goldens.trace import Trace, parse_trace, read_trace

REPO_GOLDENS = Path(__file__).resolve().parents[2] / "goldens"


def _trace() -> Trace:
    return Trace(task_id="t1", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z")


def test_the_shipped_goldens_read_and_write_back_byte_for_byte() -> None:
    files = sorted(p for p in REPO_GOLDENS.rglob("*.json") if not p.name.endswith(".noise.json"))
    assert files
    for path in files:
        assert read_trace(path).to_json() == path.read_text(encoding="utf-8"), path


def test_an_unstamped_trace_has_no_provenance_keys() -> None:
    text = _trace().to_json()
    assert '"tool_protocol"' not in text and '"ratchet_version"' not in text


def test_a_stamped_trace_keeps_the_protocol_and_version_it_ran_under() -> None:
    stamped = _trace().stamped(tool_protocol="text")
    assert (stamped.tool_protocol, stamped.ratchet_version) == ("text", __version__)
    again = parse_trace(stamped.to_json(), source="t1.json")
    assert (again.tool_protocol, again.ratchet_version) == ("text", __version__)


def test_the_project_names_the_agent_tiers_tool_protocol() -> None:
    config = RatchetConfig(tiers={"agent": TierConfig(model="openai/m", tool_protocol="text")})
    assert Project(root=Path("."), config=config, home=Path(".")).agent_tool_protocol == "text"
    assert Project(root=Path("."), config=RatchetConfig(), home=Path(".")).agent_tool_protocol == "native"


def test_an_unknown_tool_protocol_in_a_golden_is_an_error() -> None:
    text = _trace().stamped(tool_protocol="native").to_json().replace('"native"', '"smoke-signals"')
    with pytest.raises(GoldenError, match="invalid trace: tool_protocol"):
        parse_trace(text, source="t1.json")
