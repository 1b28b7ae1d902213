"""A team's declared tools through the CLI: a bad file stops `ratchet mcp` and `ratchet record` with its
line (exit 2); a good one is recorded by `ratchet record` under the minimal runner like a shipped pack."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from tests.helpers.gitrepo import make_project
from tests.helpers.project_text import FIND_CONTACT_TOOL, skill_md, tasks_yaml

REPO = Path(__file__).resolve().parents[2]
RATCHET = str(Path(sys.executable).parent / "ratchet")
runner = CliRunner()

SKILL = skill_md(
    "crm-lookup",
    "Look up a contact in the CRM by email address and log the lookup. Use when asked which company a contact's email belongs to.",
    "CRM lookup",
    inputs=["`$email`: the contact's address, an `email`."],
    steps=[
        "Find the contact: `crm_find_contact(email=$email)` as `$contact`.",
        'Log it: `crm_log_call(email=$email, summary="looked up")` as `$log`.',
    ],
    output={"name": "$contact.name", "company": "$contact.company"},
)

TASKS = tasks_yaml(
    ("crm-lookup-01", "crm-lookup", "Which company does ada@example.com belong to? Look the contact up in the CRM."),
)

BAD_SCHEMA = FIND_CONTACT_TOOL.replace("email: {type: string}\n      required: [email]\n", "email: {type: 12}\n")


def docs_example() -> str:
    match = re.search(r"```yaml\n(.*?)```", (REPO / "docs/tools.md").read_text(encoding="utf-8"), re.S)
    assert match is not None
    return match.group(1)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {"skills/crm-lookup/SKILL.md": SKILL, "tasks.yaml": TASKS, "world/tools/crm.yaml": docs_example()}
    return make_project(tmp_path, monkeypatch, files, home=tmp_path / "home")


def test_record_offers_and_records_the_teams_tools_like_a_shipped_pack(project: Path) -> None:
    recorded = runner.invoke(app, ["record"])
    assert (recorded.exit_code, recorded.stderr) == (0, "")
    trace = json.loads((project.parent / "home/pending/crm-lookup-01.json").read_text(encoding="utf-8"))
    calls = [(c["name"], c["effect"], c["arguments"], c["error"]) for c in trace["tool_calls"]]
    assert calls == [
        ("crm_find_contact", "read", {"email": "ada@example.com"}, None),
        ("crm_log_call", "write", {"email": "ada@example.com", "summary": "looked up"}, None),
    ]
    assert trace["tool_calls"][0]["result"]["company"] == "Analytical Engines"
    assert trace["tool_calls"][1]["state_changes"] == [
        {"path": "crm.calls", "before": None, "after": [{"email": "ada@example.com", "summary": "looked up"}]},
    ]
    assert "company: Analytical Engines" in trace["final_output"]


def test_a_bad_schema_stops_record_with_its_line(project: Path) -> None:
    (project / "world/tools/crm.yaml").write_text(BAD_SCHEMA, encoding="utf-8")
    recorded = runner.invoke(app, ["record"])
    assert recorded.exit_code == 2
    assert recorded.stderr == (
        f"error: {project / 'world/tools/crm.yaml'}:9: tool crm_find_contact: input_schema is not a valid JSON Schema: "
        "12 is not valid under any of the given schemas\n"
    )


def test_a_bad_schema_stops_ratchet_mcp_with_exit_2_before_serving(project: Path) -> None:
    (project / "world/tools/crm.yaml").write_text(BAD_SCHEMA, encoding="utf-8")
    done = subprocess.run(
        [RATCHET, "mcp", "--project", str(project)],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        f"error: {project / 'world/tools/crm.yaml'}:9: tool crm_find_contact: input_schema is not"
    )
