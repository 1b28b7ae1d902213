"""The free-form project of tests/data/freeform_tools as a real git repository, recorded and blessed.

One skill, oncall-handover, written in prose: it names its tools in sentences ("Read the pager log in
oncall/pager.csv with the files_read_file tool.") and prescribes its output with headings; no backticked
program. Two tasks for it and a canary. `blessed_repo` builds it under tmp_path with the given
ratchet.yaml (the simulator's, or one pointing every tier at a loopback server), records every task,
blesses the goldens and commits them: the base a `ratchet mutate` run mutates.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.mutate.models import MutationReport
from tests.helpers.gitrepo import commit, make_repo

CORPUS = Path(__file__).resolve().parents[1] / "data" / "freeform_tools"
SKILL = "oncall-handover"
LIMIT = 12
"""Mutants per run: two of each class (R1-R6), taken in turn (ratchet.mutate.plan)."""
MUTANT_IDS = [
    f"{SKILL}/{operator}"
    for operator in (
        "delete-step-1",  # R1: step 2, "Read the open incidents in oncall/incidents.md with the files_read_file tool."
        "delete-step-2",  # R1: step 4, "If an incident has been open for more than 3 days, list it under Risks."
        "delete-sentence-1",  # R2: "Reply in Markdown with these headings:"
        "delete-sentence-2",  # R2: "Two sentences at most: ..." (under the Summary heading)
        "change-value-1",  # R3: oncall/pager.csv -> oncall/incidents.md in step 1
        "change-value-2",  # R3: oncall/incidents.md -> oncall/pager.csv in step 2
        "insert-side-effect-1",  # R4: "Keep a record: write the file with `files_write_file` to notes/agent-log.md."
        "insert-side-effect-2",  # R4: "Keep everyone in the loop: send it with `email_send` to ops-review@..."
        "broaden-description-1",  # R5
        "broaden-description-2",  # R5
        "narrow-description-1",  # R6: the description loses "Use when asked for the on-call handover, ..."
        "narrow-description-2",  # R6: the description names an archived 2019 migration instead
    )
]
"""The mutants both runs check (seed 0, --limit 12): the same on the simulator and live."""


def blessed_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, config: str, record: list[str]) -> Path:
    """The project at tmp_path/repo with `config` as its ratchet.yaml, recorded (`record`: the command and its
    flags), blessed and committed; RATCHET_HOME is its .ratchet/ (git-ignored), so mutate shares the cache."""
    files = {p.relative_to(CORPUS).as_posix(): p.read_text(encoding="utf-8") for p in CORPUS.rglob("*") if p.is_file()}
    repo = make_repo(tmp_path, {**files, "ratchet.yaml": config, ".gitignore": ".ratchet/\n"})
    monkeypatch.setenv("RATCHET_HOME", str(repo / ".ratchet"))
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.delenv("CI", raising=False)
    runner = CliRunner()
    for args in (record, ["bless"]):
        result = runner.invoke(app, [*args, "--project", str(repo)])
        assert result.exit_code == 0, result.output
    commit(repo, {}, "bless the goldens")
    return repo


def score(report: MutationReport) -> tuple[int, int]:
    """(killed, checked) over the whole run."""
    killed = sum(s.killed for s in report.skills)
    return killed, killed + sum(s.survived for s in report.skills)


def killed_ids(report: MutationReport) -> list[str]:
    return [o.mutant.id for o in report.outcomes if o.status == "killed"]
