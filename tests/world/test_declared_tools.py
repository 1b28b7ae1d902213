"""Mocked tools a team declares in <world>/tools/*.yaml: loaded, validated with lines, called, recorded.

The full example in docs/tools.md is the fixture here, so the documented format cannot drift
from what the loader accepts.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ratchet.core.errors import InputError
from ratchet.goldens.trace import StateChange
from ratchet.world import World, load_world
from ratchet.world.tools import ALL_TOOLS, call_tool, offered_tools, tool_specs
from tests.helpers.project_text import FIND_CONTACT_TOOL as TOOL

REPO = Path(__file__).resolve().parents[2]
CLOCK = "2026-10-14T16:00:00Z"


def docs_example() -> str:
    """The first ```yaml block of docs/tools.md."""
    text = (REPO / "docs/tools.md").read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert match is not None
    return match.group(1)


def world_with(tmp_path: Path, files: dict[str, str], sections: str = "") -> World:
    world_dir = tmp_path / "world"
    (world_dir / "tools").mkdir(parents=True, exist_ok=True)
    if sections:
        (world_dir / "crm.yaml").write_text(sections, encoding="utf-8")
    for name, text in files.items():
        (world_dir / "tools" / name).write_text(text, encoding="utf-8")
    return load_world(world_dir, workspaces_dir=None, workspace=None, frozen_time=CLOCK)


def load_error(tmp_path: Path, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        world_with(tmp_path, {"crm.yaml": text})
    return info.value


def test_the_docs_example_loads_and_its_tools_come_after_the_shipped_ones(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"crm.yaml": docs_example()})
    names = [t.name for t in offered_tools(world)]
    assert names[-3:] == ["crm_find_contact", "crm_log_call", "crm_list_calls"]
    shipped = [t for t in ALL_TOOLS.values() if t.needs is None]
    assert tool_specs(world)[:-3] == [t.spec() for t in shipped]
    spec = tool_specs(world)[-3]
    assert spec.description == "[read] Find a contact in the CRM by email."
    assert spec.parameters == {
        "type": "object",
        "properties": {"email": {"type": "string", "description": "The contact's email address"}},
        "required": ["email"],
        "additionalProperties": False,
    }


def test_shipped_specs_are_unchanged_by_a_world_without_declared_tools(bench_world: World) -> None:
    assert tool_specs(bench_world) == [
        t.spec() for t in ALL_TOOLS.values() if t.needs is None or t.needs in bench_world.data
    ]
    assert bench_world.declared_tools == ()


def test_responses_match_on_arguments_first_match_wins_then_the_default(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"crm.yaml": docs_example()})
    ada = call_tool(world, "crm_find_contact", {"email": "ada@example.com"}, 0)
    assert (ada.effect, ada.error, ada.result) == (
        "read",
        None,
        {"name": "Ada Lovelace", "company": "Analytical Engines", "owner": "dana-kim"},
    )
    grace = call_tool(world, "crm_find_contact", {"email": "grace@example.com"}, 1)
    assert (grace.result, grace.error) == (None, "contact archived on 2026-09-30")
    nobody = call_tool(world, "crm_find_contact", {"email": "x@example.com"}, 2)
    assert nobody.error == "no contact with that email"


def test_arguments_are_checked_against_the_input_schema(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"crm.yaml": docs_example()})
    missing = call_tool(world, "crm_find_contact", {}, 0)
    assert missing.error == "arguments do not match the input schema: 'email' is a required property"
    wrong = call_tool(world, "crm_find_contact", {"email": 7}, 1)
    assert wrong.error == "arguments do not match the input schema: at email: 7 is not of type 'string'"
    extra = call_tool(world, "crm_find_contact", {"email": "a@b.c", "name": "x"}, 2)
    assert extra.error is not None and "Additional properties are not allowed" in extra.error
    assert (missing.effect, missing.arguments) == ("read", {})


def test_state_updates_are_recorded_and_seen_by_later_calls_and_copies_are_isolated(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"crm.yaml": docs_example()})
    fresh = world.copy()
    logged = call_tool(world, "crm_log_call", {"email": "ada@example.com", "summary": "renewal"}, 0)
    entry = {"email": "ada@example.com", "summary": "renewal"}
    assert logged.effect == "write"
    assert logged.result == {"logged": True, "calls_logged": [entry]}
    assert logged.state_changes == [StateChange(path="crm.calls", before=None, after=[entry])]
    second = call_tool(world, "crm_log_call", {"email": "b@example.com", "summary": "intro"}, 1)
    assert second.state_changes[0].before == [entry]
    listed = call_tool(world, "crm_list_calls", {}, 2)
    assert listed.result == [entry, {"email": "b@example.com", "summary": "intro"}]
    assert call_tool(fresh, "crm_list_calls", {}, 0).result is None


def test_an_error_response_changes_nothing(tmp_path: Path) -> None:
    text = (
        TOOL.replace("effect: read", "effect: write")
        + """    responses:
      - when: {email: nobody@example.com}
        error: no such contact
    state:
      - set: crm.last
        value: $email
    default:
      result: $world.crm.last
"""
    )
    world = world_with(tmp_path, {"crm.yaml": text})
    refused = call_tool(world, "crm_find_contact", {"email": "nobody@example.com"}, 0)
    assert (refused.error, refused.state_changes, world.data) == ("no such contact", [], {})
    done = call_tool(world, "crm_find_contact", {"email": "ada@example.com"}, 1)
    assert done.result == "ada@example.com"
    assert done.state_changes == [StateChange(path="crm.last", before=None, after="ada@example.com")]


def test_templates_arguments_world_reads_and_the_dollar_escape(tmp_path: Path) -> None:
    text = (
        TOOL
        + """    default:
      result: {args: $arguments, email: $email, plan: $world.crm.plans.ada, literal: $$email, prose: "hi $email"}
"""
    )
    world = world_with(tmp_path, {"crm.yaml": text}, sections="crm:\n  plans: {ada: pro}\nvolatile: [crm.plans.*]\n")
    call = call_tool(world, "crm_find_contact", {"email": "ada@example.com"}, 3)
    assert call.result == {
        "args": {"email": "ada@example.com"},
        "email": "ada@example.com",
        "plan": "pro",
        "literal": "$email",
        "prose": "hi $email",
    }
    assert [(r.key, r.value, r.tool_call_index) for r in world.volatile_reads] == [("crm.plans.ada", "pro", 3)]


def test_no_matching_response_and_no_default_is_an_error_the_agent_sees(tmp_path: Path) -> None:
    world = world_with(tmp_path, {"crm.yaml": TOOL})
    assert (
        call_tool(world, "crm_find_contact", {"email": "a@b.c"}, 0).error
        == "no declared response matches these arguments"
    )


def test_declared_tools_change_the_world_digest_only_when_present(tmp_path: Path) -> None:
    (tmp_path / "empty" / "world").mkdir(parents=True)
    bare = load_world(tmp_path / "empty" / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    (tmp_path / "empty" / "world" / "tools").mkdir()
    empty_tools = load_world(tmp_path / "empty" / "world", workspaces_dir=None, workspace=None, frozen_time=CLOCK)
    assert bare.digest() == empty_tools.digest()
    assert world_with(tmp_path, {"crm.yaml": TOOL}).digest() != bare.digest()


def test_a_state_path_through_a_non_mapping_is_an_error_naming_the_tools_file(tmp_path: Path) -> None:
    text = (
        TOOL.replace("effect: read", "effect: write")
        + "    state:\n      - append: crm.calls\n        value: $email\n    default: {result: ok}\n"
    )
    world = world_with(tmp_path, {"crm.yaml": text}, sections="crm: [1, 2]\n")
    with pytest.raises(InputError) as info:
        call_tool(world, "crm_find_contact", {"email": "a@b.c"}, 0)
    assert info.value.one_line() == (
        f"{tmp_path / 'world/tools/crm.yaml'}:3: tool crm_find_contact: state path crm.calls passes through "
        "crm, which is not a mapping: fix the world or the state update"
    )


# --- validation, each with its line ---------------------------------------------------------------


def test_a_bad_json_schema_names_its_line(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL.replace("email: {type: string}", "email: {type: strin}"))
    assert error.path == str(tmp_path / "world/tools/crm.yaml")
    assert error.line == 9
    assert (
        error.message
        == "tool crm_find_contact: input_schema is not a valid JSON Schema: 'strin' is not valid under any of the given schemas"
    )


def test_a_schema_that_is_not_an_object_schema(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL.replace("type: object", "type: array"))
    assert (error.line, error.message) == (
        7,
        "tool crm_find_contact: input_schema must have `type: object` at its root (MCP and the model APIs require it)",
    )


def test_an_unknown_effect(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL.replace("effect: read", "effect: delete"))
    assert error.line == 5
    assert error.message.startswith("tools.0.effect: Input should be 'read', 'write', 'send', 'spend' or 'destroy'")


def test_a_name_clashing_with_a_shipped_tool(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL.replace("crm_find_contact", "github_get_issue"))
    assert (error.line, error.message) == (3, "tool github_get_issue: the name is a shipped tool's; pick another name")


def test_a_duplicate_name_across_files_names_the_second(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        world_with(tmp_path, {"a.yaml": TOOL, "b.yaml": TOOL})
    assert info.value.path == str(tmp_path / "world/tools/b.yaml")
    assert (info.value.line, info.value.message) == (
        3,
        f"tool crm_find_contact is declared twice (first in {tmp_path / 'world/tools/a.yaml'}:3)",
    )


def test_a_when_naming_a_property_not_in_the_schema(tmp_path: Path) -> None:
    text = TOOL + "    responses:\n      - when: {mail: ada@example.com}\n        result: {}\n"
    error = load_error(tmp_path, text)
    assert (error.line, error.message) == (
        12,
        "tool crm_find_contact: `when` names 'mail', which input_schema has no property for (it has: email)",
    )


def test_an_unknown_argument_template(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL + "    default:\n      result: {who: $name}\n")
    assert (error.line, error.message) == (
        12,
        "tool crm_find_contact: `$name` is not a property of input_schema (use $arguments, $world.<path> or $$ for a literal $)",
    )


def test_state_on_a_read_tool(tmp_path: Path) -> None:
    error = load_error(tmp_path, TOOL + "    state:\n      - set: crm.x\n        value: 1\n")
    assert (error.line, error.message) == (
        11,
        "tool crm_find_contact: a read tool cannot change the world; declare its effect (write, send, spend or destroy)",
    )


def test_a_response_with_both_result_and_error(tmp_path: Path) -> None:
    text = TOOL + "    responses:\n      - when: {email: a}\n        result: 1\n        error: nope\n"
    error = load_error(tmp_path, text)
    assert error.line == 12
    assert error.message == "tools.0.responses.0: Value error, a response has either `result` or `error`, not both"


def test_a_bad_name_an_unknown_key_and_a_wrong_schema_version(tmp_path: Path) -> None:
    bad_name = load_error(tmp_path, TOOL.replace("crm_find_contact", "crm find"))
    assert bad_name.line == 3 and "tools.0.name" in bad_name.message
    unknown = load_error(tmp_path, TOOL.replace("effect: read", "effect: read\n    effects: read"))
    assert (unknown.line, unknown.message) == (6, "tools.0.effects: Extra inputs are not permitted")
    version = load_error(tmp_path, TOOL.replace("schema_version: 1", "schema_version: 2"))
    assert (version.line, version.message) == (1, "unsupported schema_version 2 (this Ratchet reads 1)")


def test_not_yaml_and_not_a_mapping(tmp_path: Path) -> None:
    broken = load_error(tmp_path, "tools: [unclosed\n")
    assert broken.path == str(tmp_path / "world/tools/crm.yaml") and broken.line is not None
    listed = load_error(tmp_path, "- name: x\n")
    assert (listed.line, listed.message) == (
        1,
        "a tools file must be a mapping with `schema_version: 1` and a `tools` list",
    )
