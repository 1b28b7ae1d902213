"""`ratchet mutate` live on a free-form skill: an agent that follows the prose kills the mutants that matter.

The same skill and mutants as tests/mutate/test_freeform_offline.py (where the simulator can follow none
of the prose, and the score is honestly low), now on the live path by configuration alone: `upstream:
live` with every tier on a loopback server whose scripted model does what the prose says
(tests/helpers/prose_follower.py: a call for each sentence naming a tool, with the path or address the
sentence gives, then the output headings). The goldens are recorded and blessed with it (they show the
skill at work, so `bless` takes them without --accept-thin), then every mutant is checked with Level 0
alone (level0_only: no judges to answer): a deleted step that read a file, a changed path, a new e-mail
or a new file are calls Level 0 sees, so those mutants are killed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.goldens.trace import Trace
from ratchet.mutate.models import MutationReport
from ratchet.mutate.run import MutateOptions, mutate_project
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.prose_follower import ProseFollower
from tests.mutate.prose_project import LIMIT, MUTANT_IDS, SKILL, blessed_repo, killed_ids, score
from tests.mutate.test_freeform_offline import OFFLINE_KILLED


def live_yaml(server: FakeOpenAI) -> str:
    tier = f'{{model: openai/fake-model, api_base: "{server.base_url}", max_tokens: 256}}'
    return (
        "schema_version: 1\nupstream: live\nretry: {max_attempts: 1, base_delay_s: 0.01, max_delay_s: 0.02}\n"
        "paths: {skills: skills, tasks: tasks.yaml, goldens: goldens, world: world, workspaces: workspaces}\n"
        f"tiers:\n  agent: {tier}\n  nano: {tier}\n  super: {tier}\n  ultra: {tier}\n"
        "prices:\n  openai/fake-model: {input: 0.000001, output: 0.000002}\n"
    )


def _mutate(repo: Path) -> MutationReport:
    return mutate_project(repo, MutateOptions(limit=LIMIT, config="level0_only"))


def test_a_model_that_follows_the_prose_kills_the_mutants_of_its_steps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ProseFollower() as server:
        repo = blessed_repo(tmp_path, monkeypatch, config=live_yaml(server), record=["record"])
        golden = Trace.model_validate_json((repo / "goldens" / SKILL / f"{SKILL}-02.json").read_text())
        report = _mutate(repo)
    # The golden shows the skill at work: the calls its steps name, the headings its output prescribes.
    assert (golden.upstream, [(c.name, c.arguments) for c in golden.tool_calls]) == (
        "live",
        [("files_read_file", {"path": "oncall/pager.csv"}), ("files_read_file", {"path": "oncall/incidents.md"})],
    )
    assert golden.final_output.startswith("### Summary\n\n### Numbers\n- Pages: noted\n")
    assert not report.simulated

    by_id = {o.mutant.id: o for o in report.outcomes}
    assert list(by_id) == MUTANT_IDS  # the very mutants the offline run checked
    assert {o.status for o in report.outcomes} <= {"killed", "survived"}
    # A deleted step naming a tool, a changed path, an inserted side effect: Level 0 sees the changed calls.
    deleted = by_id[f"{SKILL}/delete-step-1"]
    assert deleted.mutant.description.startswith("SKILL.md:13: deleted step 2 'Read the open incidents")
    assert (deleted.status, deleted.decision) == ("killed", "WARN")
    assert deleted.caught_by == [f"{SKILL}-01", f"{SKILL}-02"]
    path = by_id[f"{SKILL}/change-value-1"]
    assert "changed path 'oncall/pager.csv' to 'oncall/incidents.md'" in path.mutant.description
    assert path.status == "killed"
    for inserted in (f"{SKILL}/insert-side-effect-1", f"{SKILL}/insert-side-effect-2"):  # a new file, a new e-mail
        assert (by_id[inserted].status, by_id[inserted].decision) == ("killed", "BLOCK")
        assert by_id[inserted].reason.startswith(f"caught by 2 golden(s), first {SKILL}-01: regression (level0): ")
    # What the follower does not read (a rule, a sentence of the output's prose) survives: the score is honest.
    assert by_id[f"{SKILL}/delete-step-2"].status == "survived"

    # 58% live against 17% offline (tests/mutate/test_freeform_offline.py), over the same twelve mutants.
    assert score(report) == (7, LIMIT)
    assert killed_ids(report) == [
        f"{SKILL}/delete-step-1",
        f"{SKILL}/change-value-1",
        f"{SKILL}/change-value-2",
        f"{SKILL}/insert-side-effect-1",
        f"{SKILL}/insert-side-effect-2",
        *OFFLINE_KILLED,  # the narrowed descriptions: routing shows on both paths
    ]
    assert report.skills[0].unfollowed is None  # a live model reads prose: nothing to excuse
