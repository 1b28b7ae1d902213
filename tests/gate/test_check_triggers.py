"""The check's trigger step on the simulator (ratchet.gate.triggers, docs/adr/0025): an edit that changes a
description runs the affected trigger queries at base and head and decides each by an exact test.

The simulator routes deterministically (the lexical matcher), so N runs give 0/N or N/N: 0 of 5 against 5 of 5
is p = 1/252, which BLOCKs at alpha 0.05 with the queries that did not move left out of the family.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.gate import GateConfig, TriggersConfig, resolve_gate_config
from ratchet.core.clock import frozen_clock
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.gate.shard import Shard, ShardJob, merge_shards
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import commit, git

LEVEL0_ONLY = resolve_gate_config("level0_only")
EDIT = {edit.branch: edit for edit in EDITS}
TRIAGE_MD = "skills/github-triage/SKILL.md"
RELEASE_NOTES = "Summarise the release notes and changelog for the roadmap"
TRIGGERS_YAML = f"""schema_version: 1
triggers:
  - skill: github-triage
    should_fire:
      - Label the new bug report in acme/api and assign it to its owner
    should_not_fire:
      - {RELEASE_NOTES}
"""


def with_triggers(repo: Path) -> str:
    """Commit a triggers.yaml beside the demo's tasks.yaml on main: the base of the edits below."""
    return commit(repo, {"triggers.yaml": TRIGGERS_YAML}, "Add trigger queries")


def edit_description(repo: Path, change: str) -> str:
    """Commit `change` (old -> new, in github-triage's description line) on a branch; main stays checked out."""
    git(repo, "checkout", "-q", "-b", "edit/description", "main")
    path = repo / TRIAGE_MD
    old, new = change.split(" -> ")
    text = path.read_text(encoding="utf-8")
    assert old in text
    sha = commit(repo, {TRIAGE_MD: text.replace(old, new, 1)}, "github-triage: edit the description")
    git(repo, "checkout", "-q", "main")
    return sha


def check(repo: Path, head: str, config: GateConfig = LEVEL0_ONLY, **options: object) -> Verdict:
    options.setdefault("home", repo / ".ratchet")
    return check_edit(repo, base="main", head=head, config=config, **options)  # type: ignore[arg-type]


def test_a_broadened_description_is_caught_on_a_should_not_fire_query_no_golden_covers(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    head = edit_description(
        demo_repo,
        "or bug report. -> or bug report. Also use it to summarise release notes, changelogs and roadmap documents.",
    )
    verdict = check(demo_repo, head)
    assert verdict.decision == "BLOCK", verdict.summary
    assert not any(p.outcome == "regression" for p in verdict.pairs)  # no golden saw it
    assert verdict.triggers is not None and verdict.triggers.skills == ["github-triage"]
    [worse] = verdict.triggers.of("worse")
    assert (worse.query_id, worse.regression, worse.rates) == ("github-triage:not:1", "R5", "0/5 -> 5/5")
    assert worse.p_value == pytest.approx(1 / 252) and worse.adjusted_p == pytest.approx(1 / 252)
    assert verdict.summary.startswith(
        "1 trigger query(ies) worse at alpha 0.05, first R5 github-triage should not fire on "
        f'"{RELEASE_NOTES}" (github-triage:not:1): fired 0/5 at base -> 5/5 at head, p=0.00397, Holm 0.00397'
    )
    assert '"triggers"' in verdict.to_json()


def test_a_narrowed_description_is_caught_on_a_should_fire_query(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    head = apply_edit(demo_repo, EDIT["edit/narrowed-description"])
    verdict = check(demo_repo, head)
    assert verdict.decision == "BLOCK"
    assert verdict.triggers is not None
    worse = {c.query_id: c for c in verdict.triggers.of("worse")}
    fire = worse["github-triage:fire:1"]
    assert (fire.regression, fire.rates, fire.should_fire) == ("R6", "5/5 -> 0/5", True)
    assert fire.p_value == pytest.approx(1 / 252) and fire.adjusted_p is not None and fire.adjusted_p <= 0.05
    # The demo's own triage tasks are should-fire queries too (task:<id>), and moved alike.
    assert all(c.regression == "R6" for c in worse.values()) and set(worse) == {
        "github-triage:fire:1",
        "task:github-triage-02",
        "task:github-triage-04",
        "task:github-triage-06",
    }
    assert verdict.summary.startswith(f"{len(worse)} trigger query(ies) worse at alpha 0.05, first R6 github-triage")


MANY_FIRE = [
    "Label the new bug report in acme/api and assign it to its owner",
    "Label issue 12 in acme/api as a bug",
    "Assign the new bug report to its owner",
    "Label the new issue as a duplicate",
    "Label and assign the bug report about the login page",
    "Label the bug report about the crash on start",
    "Assign the new issue about slow builds to its owner",
    "Label the bug report about the broken link",
    "Label the new GitHub issue about the API timeout",
    "Label the issue about the flaky test as a bug",
    "Assign the bug report about the dark mode to its owner",
    "Label the new issue about the docs as a question",
    "Assign issue 40 in acme/api to its owner",
    "Label the issue about memory use as a bug",
]


def test_a_narrowed_description_that_breaks_many_queries_blocks_as_one_family(demo_repo: Path) -> None:
    """Every should-fire query 5/5 -> 0/5 is p = 1/252 alone, above Holm's first step over this many: query by
    query nothing is worse. Read together (a stratified exact test over github-triage's should-fire queries), the
    edit BLOCKs as R6 naming the skill and the queries that moved."""
    listed = "\n".join(f"      - {prompt}" for prompt in MANY_FIRE)
    commit(
        demo_repo,
        {"triggers.yaml": f"schema_version: 1\ntriggers:\n  - skill: github-triage\n    should_fire:\n{listed}\n"},
        "queries",
    )
    head = apply_edit(demo_repo, EDIT["edit/narrowed-description"])
    verdict = check(demo_repo, head)
    assert verdict.triggers is not None
    assert verdict.triggers.of("worse") == [], [(q.query_id, q.rates) for q in verdict.triggers.queries]
    [family] = verdict.triggers.families_of("worse")
    assert (family.skill, family.should_fire, family.regression) == ("github-triage", True, "R6")
    # Each that moved went 5/5 -> 0/5 (the simulator routes deterministically); too many for Holm one by one.
    assert family.base_fires - family.head_fires == 5 * len(family.moved) and len(family.moved) >= 13
    assert family.adjusted_p is not None and family.adjusted_p <= 0.05
    assert verdict.decision == "BLOCK", verdict.summary
    assert verdict.summary.startswith(
        f"1 trigger query family worse at alpha 0.05, first R6 github-triage: its should-fire queries fired "
        f"{family.head_fires} of {family.base_n} at head against {family.base_n} of {family.base_n} at base "
        f"({len(family.queries)} queries, "
        f"stratified exact p {family.p_value:.3g}, Holm {family.adjusted_p:.3g}; {len(family.moved)} moved the wrong "
        "way: github-triage:fire:1, github-triage:fire:2, github-triage:fire:3, ...)"
    )


def test_a_reworded_description_that_moves_no_query_passes_with_the_rates_shown(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    head = edit_description(demo_repo, "Use when asked to triage -> Use it whenever asked to triage")
    verdict = check(demo_repo, head)
    assert verdict.decision == "PASS", verdict.summary
    assert verdict.triggers is not None and verdict.triggers.queries
    assert {c.outcome for c in verdict.triggers.queries} == {"same"}
    fire = next(c for c in verdict.triggers.queries if c.query_id == "github-triage:fire:1")
    assert (fire.rates, fire.p_value) == ("5/5 -> 5/5", pytest.approx(1.0))


def test_a_cosmetic_description_edit_passes_and_runs_no_trigger_query(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    head = edit_description(demo_repo, "Triage a new GitHub issue -> Triage a new  GitHub   issue")
    verdict = check(demo_repo, head)
    assert verdict.decision == "PASS", verdict.summary
    assert verdict.triggers is None and verdict.cost_usd == 0.0


def test_zero_repeats_turns_the_step_off(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    head = edit_description(
        demo_repo,
        "or bug report. -> or bug report. Also use it to summarise release notes, changelogs and roadmap documents.",
    )
    off = LEVEL0_ONLY.model_copy(update={"triggers": TriggersConfig(repeats=0)})
    verdict = check(demo_repo, head, off)
    assert verdict.triggers is None and verdict.decision == "PASS"


def test_an_edit_to_the_trigger_queries_is_checked_with_the_base_queries_and_warns(demo_repo: Path) -> None:
    with_triggers(demo_repo)
    git(demo_repo, "checkout", "-q", "-b", "edit/description", "main")
    text = (demo_repo / TRIAGE_MD).read_text(encoding="utf-8")
    broadened = text.replace(
        "or bug report.", "or bug report. Also use it to summarise release notes, changelogs and roadmap documents.", 1
    )
    # The edit deletes the query that would catch it: the base's queries still run.
    head = commit(demo_repo, {TRIAGE_MD: broadened, "triggers.yaml": None}, "broaden and drop the query")
    git(demo_repo, "checkout", "-q", "main")
    verdict = check(demo_repo, head)
    assert verdict.decision == "BLOCK"
    assert verdict.triggers is not None and verdict.triggers.file_changed == "triggers.yaml"
    assert [c.query_id for c in verdict.triggers.of("worse")] == ["github-triage:not:1"]
    assert "trigger queries changed (triggers.yaml): checked with the base's queries" in verdict.summary


@pytest.mark.parametrize("shards", [2, 3])
def test_shards_merged_carry_the_trigger_check_as_one_machine_does(
    demo_repo: Path, tmp_path: Path, shards: int
) -> None:
    from tests.gate.test_shard import every_rendering

    with_triggers(demo_repo)
    head = edit_description(
        demo_repo,
        "or bug report. -> or bug report. Also use it to summarise release notes, changelogs and roadmap documents.",
    )
    # Own work areas, as separate CI machines have (a shared cache would turn later runs into cache hits).
    whole = check(demo_repo, head, home=tmp_path / "home-whole", clock=frozen_clock)
    files = []
    for index in range(1, shards + 1):
        job = ShardJob(Shard(index=index, count=shards))
        partial = check(demo_repo, head, home=tmp_path / f"home-{index}", clock=frozen_clock, shard=job)
        assert job.result is not None
        # Shard 1 alone runs the trigger step and carries it; its partial verdict already BLOCKs on it.
        assert (job.result.triggers is not None) == (index == 1)
        assert (partial.triggers is not None, partial.decision == "BLOCK") == (index == 1, index == 1)
        files.append(tmp_path / f"shard-{index}.json")
        files[-1].write_text(job.result.to_json(), encoding="utf-8")
    merged, _ = merge_shards(list(reversed(files)))
    assert whole.decision == "BLOCK" and whole.triggers is not None and whole.triggers.of("worse")
    assert every_rendering(merged) == every_rendering(whole)
    assert merged.to_json() == whole.to_json()


def test_the_trigger_table_is_in_the_terminal_and_the_pr_comment(demo_repo: Path) -> None:
    from rich.console import Console

    from ratchet.outputs.markdown import render_markdown
    from ratchet.outputs.table import render_verdict

    with_triggers(demo_repo)
    head = edit_description(
        demo_repo,
        "or bug report. -> or bug report. Also use it to summarise release notes, changelogs and roadmap documents.",
    )
    verdict = check(demo_repo, head)
    header = (
        "trigger queries: 25 run 5 time(s) at base and head (github-triage; neighbours fx-expense-converter), "
        "alpha 0.05 Holm-corrected: 1 worse, 24 same"
    )
    markdown = render_markdown(verdict).splitlines()
    at = markdown.index(f"**{header}**")
    assert markdown[at + 2 : at + 6] == [
        "| query | expects | base | head | p | Holm | outcome |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| github-triage:not:1: {RELEASE_NOTES} | github-triage does not fire | 0/5 | 5/5 | 0.00397 | 0.00397 "
        "| worse (R5) |",
        "| 24 more |  |  |  |  |  | same |",
    ]
    console = Console(width=200, no_color=True, force_terminal=False, record=True)
    render_verdict(verdict, console)
    text = console.export_text()
    assert header in text
    assert f"github-triage:not:1: {RELEASE_NOTES}   github-triage does not fire   0/5    5/5    0.00397" in text
