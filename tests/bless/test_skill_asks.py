"""What a skill body asks for that a trace can show, read without a model: the tools and commands it
names, the output sections and fields it prescribes (ratchet.gate.asks).

Why: a golden must show the skill at work (issue 24). Checking that needs to know what "at work" would
look like for a skill as people write it: tool names and commands in prose and code, headings and field
names in an output section, a list of sections in a sentence; not only the simulator's backticked program.
"""

from __future__ import annotations

from pathlib import Path

from ratchet.data import demo_files
from ratchet.diff.effects import ToolCatalog, tool_catalog
from ratchet.gate.asks import skill_asks
from ratchet.skills.skill import load_skill

FREEFORM = Path(__file__).resolve().parents[1] / "data" / "freeform" / "skills"

PDF_FORMS = """# PDF forms

Fill a PDF form from the customer's answers.

## Steps

1. Extract the text first:

   ```bash
   pdftotext -layout form.pdf form.txt
   ```

2. Fill the fields with `python scripts/fill_form.py form.pdf answers.json`.
3. Look up the customer with crm_lookup if their address is missing, and send the filled form with
   mcp__ratchet__email_send. Use the Write tool for the final file, never for notes.
4. Keep the `file path` and the `owner/name` of the template as they are; `stop` when done.

## Report format

### Fields filled
### Fields left blank
### Questions for the customer
"""

TEMPLATE = """# Weekly status

Summarise the week for the team.

## Output template

```markdown
# Status: <team>
## Shipped
## Blocked
Owner: <name>
```
"""


def _demo_body(name: str) -> str:
    with demo_files() as source:
        return load_skill(source / "skills" / name).body


def test_the_simulators_convention_names_its_tools_and_output_fields() -> None:
    fx = skill_asks(_demo_body("fx-expense-converter"), tool_catalog())
    assert fx.tools == ["files_read_file", "fx_get_rate"]
    assert fx.commands == []  # `$rows = parse_csv(...)`, `stop`, `file path`: code, not commands
    assert fx.outputs == ["file", "status", "lines", "weekend_rates", "total_usd"]
    triage = skill_asks(_demo_body("github-triage"), tool_catalog())
    assert triage.tools == [
        "github_get_issue",
        "github_add_label",
        "github_comment",
        "github_close_issue",
        "github_assign",
    ]
    assert triage.outputs == ["repo", "issue", "status", "type", "priority", "component", "assignee", "duplicate_of"]


def test_a_free_form_skill_names_tools_commands_and_headings_in_prose() -> None:
    asks = skill_asks(PDF_FORMS, tool_catalog())
    assert asks.tools == ["mcp__ratchet__email_send", "Write"]  # crm_lookup is no tool the world offers
    assert [command.shown for command in asks.commands] == ["pdftotext", "python scripts/fill_form.py"]
    assert [command.words for command in asks.commands] == [("pdftotext",), ("fill_form.py",)]  # any runner of it
    assert asks.outputs == ["Fields filled", "Fields left blank", "Questions for the customer"]


def test_a_declared_tool_is_a_tool_the_skill_names() -> None:
    catalog = tool_catalog()
    assert skill_asks(PDF_FORMS, catalog).tools.count("crm_lookup") == 0
    declared = ToolCatalog({**catalog.effects, "crm_lookup": "read"})  # as a world's tools/*.yaml declares it
    assert skill_asks(PDF_FORMS, declared).tools == ["crm_lookup", "mcp__ratchet__email_send", "Write"]


def test_an_output_template_block_prescribes_its_headings_and_fields() -> None:
    assert skill_asks(TEMPLATE, tool_catalog()).outputs == ["Status", "Shipped", "Blocked", "Owner"]


def test_sections_listed_in_a_sentence_are_prescribed_output() -> None:
    postmortem = skill_asks(load_skill(FREEFORM / "incident-postmortem").body, tool_catalog())
    assert postmortem.outputs == [
        "Summary",
        "Impact",
        "Timeline",
        "Root cause",
        "Contributing factors",
        "What went well",
        "Action items",
    ]
    notes = skill_asks(load_skill(FREEFORM / "release-notes").body, tool_catalog())
    assert notes.outputs == ["Features", "Fixes", "Deprecations"]
    assert (notes.tools, notes.commands) == ([], [])


def test_a_skill_that_names_nothing_asks_for_nothing_a_trace_can_show() -> None:
    for name in ("refund-reply", "onboarding-checklist"):
        asks = skill_asks(load_skill(FREEFORM / name).body, tool_catalog())
        assert (asks.tools, asks.commands, asks.outputs) == ([], [], []), name
        assert not asks.anything


def test_a_tool_named_only_in_a_prohibition_is_not_asked_for() -> None:
    body = (
        "# CSV summary\n\nOpen the CSV the user names and summarise the totals per column.\n"
        "Never send anything with email_send, and do not post to slack_post_message.\n"
        "Use files_read_file to open it, never for anything else.\n"
    )
    assert skill_asks(body, tool_catalog()).tools == ["files_read_file"]


def test_any_python_launcher_of_a_script_is_one_command() -> None:
    body = "# X\n\n1. Run `python scripts/x.py in.pdf`.\n2. Then `uv run scripts/y.py`.\n"
    assert [c.shown for c in skill_asks(body, tool_catalog()).commands] == [
        "python scripts/x.py",
        "uv run scripts/y.py",
    ]
