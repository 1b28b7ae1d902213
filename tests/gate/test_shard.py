"""Sharded checks: `--shard 1/3 .. 3/3` merged is the unsharded verdict, byte for byte.

Each shard and the unsharded run get their own work area, as separate CI machines do (a shared
response cache would turn the later runs' calls into cache hits, which the verdict records). The
clock is frozen so wall time, the one figure that measures the machine, is 0 on both sides.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.core.clock import frozen_clock
from ratchet.core.errors import InputError
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.gate.shard import Shard, ShardJob, ShardResult, merge_shards, shard_task_ids
from ratchet.outputs.formats import OutputFormat, render_text
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import git

EDIT = {edit.branch: edit for edit in EDITS}
CASCADE = resolve_gate_config("cascade")


def multi_skill_edit(repo: Path) -> str:
    """One branch that edits both demo skills: a changed argument and a new side effect."""
    git(repo, "checkout", "-q", "-b", "edit/multi", "main")
    for branch in ("edit/changed-argument", "edit/new-side-effect"):
        edit = EDIT[branch]
        path = repo / "skills" / edit.skill / "SKILL.md"
        path.write_text(edit.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "edit both skills")
    git(repo, "checkout", "-q", "main")
    return "edit/multi"


def prose_edit(repo: Path, branch: str, sentence: str) -> str:
    """A branch that adds `sentence` to github-triage: prose the simulator does not read, so its pairs are
    replayed (the diff does not prove it cosmetic) and come out the same."""
    git(repo, "checkout", "-q", "-b", branch, "main")
    path = repo / "skills" / "github-triage" / "SKILL.md"
    path.write_text(path.read_text(encoding="utf-8") + f"\n{sentence}\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a sentence of prose")
    git(repo, "checkout", "-q", "main")
    return branch


def unsharded(repo: Path, head: str, home: Path) -> Verdict:
    return check_edit(repo, base="main", head=head, config=CASCADE, home=home, clock=frozen_clock)


def shard_files(repo: Path, head: str, tmp: Path, count: int) -> list[Path]:
    files = []
    for index in range(1, count + 1):
        job = ShardJob(Shard(index=index, count=count))
        check_edit(
            repo, base="main", head=head, config=CASCADE, home=tmp / f"home-{index}", clock=frozen_clock, shard=job
        )
        assert job.result is not None
        path = tmp / f"shard-{index}.json"
        path.write_text(job.result.to_json(), encoding="utf-8")
        files.append(path)
    return files


def every_rendering(verdict: Verdict) -> dict[str, str]:
    from ratchet.cli.gate import table_text

    return {
        "table": table_text(verdict),
        **{f.value: render_text(verdict, f) for f in (OutputFormat.JSON, OutputFormat.MARKDOWN, OutputFormat.JUNIT)},
    }


@pytest.mark.parametrize("edit", ["edit/changed-argument", "edit/cosmetic", "multi", "prose-email"])
def test_three_shards_merged_are_the_unsharded_verdict_byte_for_byte(
    demo_repo: Path, tmp_path: Path, edit: str
) -> None:
    if edit == "multi":
        head = multi_skill_edit(demo_repo)
    elif edit == "prose-email":  # a floor finding no replay exercised (ratchet.gate.static)
        head = prose_edit(demo_repo, "edit/prose-email", "Email the triage summary to lead@example.com.")
    else:
        head = edit
        apply_edit(demo_repo, EDIT[edit])
    whole = unsharded(demo_repo, head, tmp_path / "home-whole")
    files = shard_files(demo_repo, head, tmp_path, 3)
    merged, _ = merge_shards(list(reversed(files)))  # any order
    assert every_rendering(merged) == every_rendering(whole)
    assert merged.to_json() == whole.to_json()
    assert whole.diff, "the behavioural diff is on the verdict"
    if edit == "edit/cosmetic":  # nothing the model reads changed: every shard holds the one verdict
        assert (whole.decision, whole.pairs) == ("PASS", [])
    else:
        assert len(whole.pairs) >= 3, "every shard had pairs to replay"
    if edit == "prose-email":
        assert whole.decision == "WARN"
        assert whole.summary.startswith(
            "the edit adds an instruction to email lead@example.com (send) in skill "
            "github-triage that no replay exercised (static: warn); "
        )
    if edit == "multi":
        assert whole.skills_changed == ["fx-expense-converter", "github-triage"]
        assert whole.decision == "BLOCK"


def test_each_shard_replays_only_its_share_and_says_it_is_partial(demo_repo: Path, tmp_path: Path) -> None:
    head = prose_edit(demo_repo, "edit/prose", "Be kind.")
    files = shard_files(demo_repo, head, tmp_path, 3)
    results = [ShardResult.model_validate_json(f.read_text(encoding="utf-8")) for f in files]
    selected = results[0].run.selected
    assert [[p.task_id for p in r.pairs] for r in results] == [
        shard_task_ids(selected, Shard(index=k, count=3)) for k in (1, 2, 3)
    ]
    assert sorted(p.task_id for r in results for p in r.pairs) == sorted(selected) and selected
    job = ShardJob(Shard(index=2, count=3))
    partial = check_edit(
        demo_repo, base="main", head=head, config=CASCADE, home=tmp_path / "again", clock=frozen_clock, shard=job
    )
    # The prose edit passes as a whole; a shard of it alone is never PASS.
    assert partial.decision == "WARN"
    assert partial.summary.startswith(
        f"PARTIAL: shard 2/3, {len(results[1].pairs)} of {len(selected)} affected "
        "golden(s), not the check's verdict: run ratchet merge on all 3 shard files; "
    )


def test_partition_is_round_robin_over_the_selection() -> None:
    ids = [f"t{i}" for i in range(7)]
    assert [shard_task_ids(ids, Shard(index=k, count=3)) for k in (1, 2, 3)] == [
        ["t0", "t3", "t6"],
        ["t1", "t4"],
        ["t2", "t5"],
    ]
    assert shard_task_ids(ids[:1], Shard(index=2, count=2)) == []


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "1-3", ""])
def test_a_bad_shard_is_one_input_error(text: str) -> None:
    with pytest.raises(InputError, match=r"expected K/N with 1 <= K <= N, e.g. --shard 2/3"):
        Shard.parse(text)


def test_merge_refuses_a_missing_a_duplicate_and_a_foreign_shard(demo_repo: Path, tmp_path: Path) -> None:
    apply_edit(demo_repo, EDIT["edit/cosmetic"])
    apply_edit(demo_repo, EDIT["edit/reworded-status"])
    one, two, three = shard_files(demo_repo, "edit/cosmetic", tmp_path, 3)
    with pytest.raises(InputError, match=r"^shard\(s\) 2/3 missing: merge needs every shard of the run$"):
        merge_shards([one, three])
    with pytest.raises(InputError, match=r"shard 2/3 given twice \(also .*shard-2.json\): give each shard file once"):
        merge_shards([one, two, two, three])
    other = tmp_path / "other"
    other.mkdir()
    foreign = shard_files(demo_repo, "edit/reworded-status", other, 3)[1]
    with pytest.raises(
        InputError,
        match=r"shard 2/3 is of another run than .*shard-1.json \(head '[0-9a-f]{40}' "
        r"vs '[0-9a-f]{40}'\): merge the shards of one check",
    ):
        merge_shards([one, foreign, three])
    verdict = tmp_path / "verdict.json"
    verdict.write_text('{"decision": "PASS"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"verdict.json: not a shard file of ratchet check --shard K/N"):
        merge_shards([one, verdict, three])
