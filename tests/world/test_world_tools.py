from __future__ import annotations

import re
from pathlib import Path

import pytest

from ratchet.core.errors import InputError, ToolError
from ratchet.world import World, load_world
from ratchet.world.tools import ALL_TOOLS, call_tool, tool_specs

from .conftest import CLOCK


def test_every_tool_has_a_valid_name_and_effect(bench_world: World) -> None:
    for spec in tool_specs(bench_world):
        assert re.fullmatch(r"[a-zA-Z0-9_-]+", spec.name)
    assert {t.effect for t in ALL_TOOLS.values()} <= {"read", "write", "send", "spend", "destroy"}
    assert ALL_TOOLS["github_comment"].effect == "send"
    assert ALL_TOOLS["github_close_issue"].effect == "write"


def test_unknown_tool_and_bad_arguments_are_errors_not_crashes(bench_world: World) -> None:
    assert "unknown tool" in (call_tool(bench_world, "rm_rf", {}, 0).error or "")
    assert "missing required argument 'repo'" in (
        call_tool(bench_world, "github_get_issue", {"number": 1}, 1).error or ""
    )
    bad = call_tool(bench_world, "github_get_issue", {"repo": "acme/widgets", "number": "abc"}, 2)
    assert bad.error == "argument 'number' must be a integer, got str"
    assert "unknown argument" in (call_tool(bench_world, "clock_now", {"tz": "x"}, 3).error or "")


def test_write_tools_record_state_changes(bench_world: World) -> None:
    call = call_tool(bench_world, "github_add_label", {"repo": "acme/widgets", "number": 101, "label": "bug"}, 0)
    assert call.error is None and call.effect == "write"
    assert call.state_changes[0].path == "github.repos.acme/widgets.issues.101.labels"
    assert call.state_changes[0].before == [] and call.state_changes[0].after == ["bug"]
    unknown_label = call_tool(
        bench_world, "github_add_label", {"repo": "acme/widgets", "number": 101, "label": "wontfix"}, 1
    )
    assert unknown_label.error and not unknown_label.state_changes
    closed = call_tool(
        bench_world, "github_close_issue", {"repo": "acme/widgets", "number": 105, "reason": "duplicate"}, 2
    )
    assert closed.state_changes[0].after == "closed"
    written = call_tool(bench_world, "files_write_file", {"path": "out/usd.csv", "content": "x"}, 3)
    assert bench_world.files["out/usd.csv"] == "x" and written.state_changes[0].before is None


def test_fx_rates_are_volatile_reads_and_weekends_have_none(bench_world: World) -> None:
    friday = call_tool(bench_world, "fx_get_rate", {"base": "EUR", "quote": "USD", "date": "2026-10-09"}, 4)
    assert friday.result["rate"] == bench_world.data["fx"]["rates"]["2026-10-09"]["EUR"]
    assert [(r.key, r.tool_call_index) for r in bench_world.volatile_reads] == [("fx.rates.2026-10-09.EUR", 4)]
    saturday = call_tool(bench_world, "fx_get_rate", {"base": "EUR", "quote": "USD", "date": "2026-10-10"}, 5)
    assert saturday.error == "no rates are published on weekends (2026-10-10 is a Saturday)"
    cross = call_tool(bench_world, "fx_get_rate", {"base": "EUR", "quote": "GBP", "date": "2026-10-09"}, 6)
    assert len(bench_world.volatile_reads) == 3 and 0.8 < cross.result["rate"] < 0.9


def test_clock_is_frozen(bench_world: World) -> None:
    assert call_tool(bench_world, "clock_now", {}, 0).result == {
        "now": "2026-10-14T16:00:00Z",
        "date": "2026-10-14",
        "weekday": "Wednesday",
    }


def test_world_data_a_tool_cannot_read_is_an_input_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "github.yaml").write_text(
        "github:\n  repos:\n    acme/widgets:\n      issues: none\n", encoding="utf-8"
    )
    world = load_world(tmp_path, workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    with pytest.raises(InputError) as info:
        call_tool(world, "github_get_issue", {"repo": "acme/widgets", "number": 1}, 0)
    assert info.value.path == str(tmp_path / "github.yaml")
    assert info.value.message.startswith(
        "world data for tool github_get_issue has an unexpected shape: AttributeError:"
    )
    assert not isinstance(info.value, ToolError)


def test_a_tool_crash_on_a_section_built_in_code_is_still_a_tool_error() -> None:
    world = World({"github": {"repos": {"acme/widgets": {"issues": "none"}}}}, frozen_time=CLOCK)
    with pytest.raises(ToolError, match="tool github_get_issue crashed: AttributeError"):
        call_tool(world, "github_get_issue", {"repo": "acme/widgets", "number": 1}, 0)
