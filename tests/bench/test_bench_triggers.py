"""The bench runs the check's trigger step on an edit that changes a description, beside its verdict, and the same
data gives the same trigger results; a re-judging run carries the recording run's step (it makes no agent call)."""

from __future__ import annotations

from pathlib import Path

from ratchet.bench.data.models import Edit, Label, LabelsFile, edit_hash
from ratchet.bench.data.results import read_results
from ratchet.core.errors import InputError
from ratchet.core.jsonio import atomic_write_text, canonical_dumps, load_json_file
from ratchet.skills.sets import load_skills
from tests.bench.fixtures_mini import run_packaged

EDIT = "github-triage.R5.1"
TRIGGERS = """schema_version: 1
triggers:
  - skill: github-triage
    should_fire:
      - "Label the new bug report in acme/api (#12) and assign it."
    should_not_fire:
      - "Summarise the onboarding handbook for a new hire."
"""


def _with_broadened_edit(root: Path) -> None:
    """triggers.yaml beside the mini's tasks.yaml, and an R5 edit that broadens github-triage's description to take
    handbook summaries (which no golden replays: only the trigger query covers it)."""
    (root / "triggers.yaml").write_text(TRIGGERS, encoding="utf-8")
    skill = load_skills(root / "skills")["github-triage"]
    text = (root / "skills" / "github-triage" / "SKILL.md").read_text(encoding="utf-8")
    broadened = text.replace(
        "Use when asked to triage,",
        "Also use it to summarise an onboarding handbook for a new hire. Use when asked to triage,",
        1,
    )
    assert broadened != text
    edit = Edit(
        id=EDIT,
        skill="github-triage",
        type="R5",
        variant=1,
        description="description broadened to handbook summaries",
        skill_md=broadened,
        base_content_hash=skill.content_hash,
    )
    atomic_write_text(root / "bench" / "edits" / f"{EDIT}.json", canonical_dumps(edit.model_dump(mode="json")))
    labels = LabelsFile.model_validate(load_json_file(root / "labels" / "labels.json", error=InputError))
    labels.labels.append(
        Label(
            edit_id=EDIT,
            type="R5",
            skill="github-triage",
            affected_goldens=[],
            expected_decision="BLOCK",
            edit_hash=edit_hash(edit),
        )
    )
    atomic_write_text(root / "labels" / "labels.json", canonical_dumps(labels.model_dump(mode="json")))


def test_trigger_step_is_recorded_beside_the_verdict_and_is_deterministic(mini: Path) -> None:
    _with_broadened_edit(mini)
    first, second = mini / "out-1", mini / "out-2"
    run_packaged(mini, "cascade", first, types=("R5", "N0"))
    run_packaged(mini, "cascade", second, types=("R5", "N0"))
    run_packaged(mini, "nano_only", first, types=("R5", "N0"))

    one = read_results(first)
    scored = one.runs["cascade"].edits[EDIT]
    triggers = scored.triggers
    assert triggers is not None
    assert triggers.decision == "BLOCK"
    assert triggers.skills == ["github-triage"]
    worse = [(f.query_id, f.regression, f.base_fires, f.base_n, f.head_fires, f.head_n) for f in triggers.flagged]
    assert worse == [("github-triage:not:1", "R5", 0, 5, 5, 5)]
    assert triggers.flagged[0].p_value is not None and triggers.flagged[0].p_value < 0.05
    # The verdict stays the decision without trigger queries: no golden replays a handbook summary.
    assert scored.verdict.triggers is None
    # N0 edits never touch the frontmatter: no trigger step.
    assert all(e.triggers is None for e in one.runs["cascade"].edits.values() if e.type == "N0")
    # Same data, same trigger results; the re-judging run carries the recording run's.
    assert read_results(second).runs["cascade"].edits[EDIT].triggers == triggers
    assert one.runs["nano_only"].edits[EDIT].triggers == triggers
