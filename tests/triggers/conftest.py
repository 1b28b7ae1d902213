"""A two-skill project on the simulator for trigger runs (no git: trigger runs read the working tree)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import Project, load_project
from tests.helpers.gitrepo import write_files

TRIAGE = (
    "Triage a new GitHub issue, label it by type and assign it to the component owner. "
    "Use when asked to triage, label or assign a GitHub issue or bug report."
)
FX = "Convert expense amounts in foreign currencies to US dollars at the day's exchange rate."
BROADENED = TRIAGE + " Also use for any question about a repository, its README or its code."
NARROWED = "Close duplicate pull requests."
SHOULD_FIRE = "Label issue #12 in acme/api as a bug and assign it to its owner"
SHOULD_NOT_FIRE = "Summarise the README of the acme/api repository"
TRIGGERS = f"""schema_version: 1
triggers:
  - skill: github-triage
    should_fire:
      - "{SHOULD_FIRE}"
    should_not_fire:
      - "{SHOULD_NOT_FIRE}"
  - skill: null
    should_not_fire:
      - "Write a haiku about autumn leaves"
"""
TASKS = """schema_version: 1
tasks:
  - id: fx-01
    skill: fx-convert
    prompt: Convert my Berlin expenses in EUR to US dollars.
"""


def skill_md(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nDo the work.\n"


def write_project(root: Path, *, triage: str = TRIAGE, routing: str = "lexical", extra: str = "") -> Path:
    write_files(
        root,
        {
            "ratchet.yaml": f"schema_version: 1\nupstream: sim\nrouting: {routing}\n{extra}",
            "tasks.yaml": TASKS,
            "triggers.yaml": TRIGGERS,
            "skills/github-triage/SKILL.md": skill_md("github-triage", triage),
            "skills/fx-convert/SKILL.md": skill_md("fx-convert", FX),
        },
    )
    return root


@pytest.fixture
def project_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    return write_project(tmp_path / "proj")


def project_at(root: Path, home: Path) -> Project:
    return load_project(root, home=home)
