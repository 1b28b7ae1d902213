"""`ratchet mutate` offline on a free-form skill: text mutants, an honestly low score, and the reason for it.

Why (issue 24): the simulator acts only on the skill convention's backticked program. A skill written in
prose (tests/data/freeform_tools: it names its tools in sentences) is recorded on the simulator only with
--allow-unfollowed, and its goldens then hold what the simulator did, not what the skill asks: a mutant
that deletes the step reading the pager log replays exactly like the golden. The score is low, and the
report must say why, per skill, on the terminal, in mutation.md and in mutation.json, instead of letting a
team read "0%" as "our goldens are weak". tests/mutate/test_freeform_live.py checks the same skill live.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.mutate.models import MutationReport
from ratchet.sim.follow import NOTHING_TO_READ
from tests.mutate.prose_project import LIMIT, MUTANT_IDS, SKILL, blessed_repo, killed_ids, score

SIM_YAML = (
    "schema_version: 1\nupstream: sim\n"
    "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
)
UNFOLLOWED = (
    f"the simulator cannot follow this skill's prose ({NOTHING_TO_READ}): its goldens record what the simulator "
    "did, not what the skill asks; record live or through a real harness for a meaningful score"
)
OFFLINE_KILLED = [f"{SKILL}/narrow-description-1", f"{SKILL}/narrow-description-2"]
"""Only a description mutant that moves a task away from the skill shows offline: routing is simulated too."""


def test_a_free_form_skill_scores_low_offline_and_the_report_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    repo = blessed_repo(tmp_path, monkeypatch, config=SIM_YAML, record=["record", "--allow-unfollowed"])
    out = tmp_path / "report"
    result = CliRunner().invoke(
        app, ["mutate", "--repo", str(repo), "--limit", str(LIMIT), "--config", "level0_only", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    report = MutationReport.model_validate_json((out / "mutation.json").read_text(encoding="utf-8"))

    # The text operators made every class from the prose, and each mutant was checked.
    assert report.simulated
    assert [o.mutant.id for o in report.outcomes] == MUTANT_IDS
    assert sorted({o.mutant.mutant_class for o in report.outcomes}) == ["R1", "R2", "R3", "R4", "R5", "R6"]
    assert {o.status for o in report.outcomes} <= {"killed", "survived"}

    # Honestly low: the simulator did nothing the prose asks, so the mutants of its steps replay unchanged.
    assert score(report) == (2, LIMIT)  # 17%
    assert killed_ids(report) == OFFLINE_KILLED
    by_id = {o.mutant.id: o for o in report.outcomes}
    for mutant_id in (f"{SKILL}/delete-step-1", f"{SKILL}/change-value-1", f"{SKILL}/insert-side-effect-1"):
        assert (by_id[mutant_id].status, by_id[mutant_id].decision) == ("survived", "WARN")
        assert by_id[mutant_id].reason.startswith("no golden noticed it; the WARN came only from an unseen note")

    # ... and the report says why, per skill: in the JSON, the Markdown and the terminal's summary.
    (skill,) = report.skills
    assert skill.unfollowed == UNFOLLOWED
    assert json.loads((out / "mutation.json").read_text())["skills"][0]["unfollowed"] == UNFOLLOWED
    assert f"- {SKILL}: {UNFOLLOWED}" in (out / "mutation.md").read_text(encoding="utf-8").splitlines()
    assert f"- {SKILL}: {UNFOLLOWED}" in result.stdout.splitlines()
