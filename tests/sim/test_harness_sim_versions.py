"""The simulated agent behind Claude Code routes alike under each tested Claude Code version.

Why: each Claude Code release bundles its own skills and lists them with the project's. 2.1.197 lists
deep-research, verify and review, which 2.1.332 does not; counted in, they moved the idf and the demo's
"Triage acme/widgets#103 ..." routed nowhere behind 2.1.197 (the golden "fired no skill"). The fixture
is 2.1.197's first request of that task, captured through the real binary.
"""

from __future__ import annotations

import copy
import re

from ratchet.llm import anthropic_api
from ratchet.sim.agent import SimAgentModel
from ratchet.sim.harness_agent import CLAUDE_CODE_BUNDLED_BY_VERSION, catalog
from tests.helpers.harness_drive import fixture

PROJECT = ["fx-expense-converter", "github-triage"]


def test_claude_code_2_1_197s_first_request_lists_only_the_projects_skills_and_loads_the_triage_skill() -> None:
    request = anthropic_api.parse(fixture("claude_first_2.1.197")).request
    assert [e.name for e in catalog("claude-code", request)] == PROJECT
    reply = SimAgentModel().complete(request).message
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("Skill", {"skill": "github-triage"})]


def test_a_claude_code_version_not_tested_leaves_out_every_skill_a_tested_one_bundles() -> None:
    body = copy.deepcopy(fixture("claude_first_2.1.197"))
    header = body["system"][0]
    header["text"] = re.sub(r"cc_version=[0-9.]+[0-9a-f]*", "cc_version=9.9.9.abc", header["text"])
    request = anthropic_api.parse(body).request
    assert "9.9.9" not in CLAUDE_CODE_BUNDLED_BY_VERSION
    assert [e.name for e in catalog("claude-code", request)] == PROJECT


def test_the_tested_versions_bundled_names_are_those_each_lists() -> None:
    text = fixture("claude_first_2.1.197")["messages"][1]["content"]
    text = text if isinstance(text, str) else text[0]["text"]
    section = text.split("available for use with the Skill tool:\n\n", 1)[1].split("\n\n", 1)[0]
    listed = {line[2:].partition(": ")[0] for line in section.split("\n") if line.startswith("- ")}
    assert listed - set(PROJECT) == CLAUDE_CODE_BUNDLED_BY_VERSION["2.1.197"]
