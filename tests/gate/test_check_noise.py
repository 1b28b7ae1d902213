"""`ratchet check` with noise records: the base's records are used, and only they; noise never hides a hard fail.

Every test runs on a copy of the blessed demo repository whose ratchet.yaml (at the base) sets
`sim_noise: 0.5`, so about half of a replay's answers are reworded or gain a closing line, and
records measured with `ratchet noise --repeats 20` (tests/helpers/noise_repo.py). The edit
FX_COSMETIC only adds an HTML comment, which the simulator never acts on: every difference its
replays show is the simulator's own noise. Twenty repeats, not fewer: with twelve, the demo's
fx-expense-converter-09 draws an added closing line on all of its first five replays (each does with
chance 1/4: about 1 in 250) and blocks on the exact test, one of the rare false BLOCKs its alpha allows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.gate.models import PairOutcome, Verdict
from ratchet.goldens.noise import (
    NoiseRecord,
    golden_hash,
    load_noise_records,
    noise_path,
    write_noise_record,
)
from ratchet.goldens.trace import read_trace, write_trace
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import commit, git
from tests.helpers.noise_repo import (
    FX_COSMETIC,
    FX_TASKS,
    TRIAGE_TASKS,
    commit_records,
    golden_paths,
    read_record,
    set_sim_noise,
)

runner = CliRunner()
CASCADE = resolve_gate_config("cascade")
JUDGE_TIERS = {step.tier for step in CASCADE.tiers}
EDIT = {edit.branch: edit for edit in EDITS}
REPEATS = 20


def _check(repo: Path, base: str, head: str) -> Verdict:
    return check_edit(repo, base=base, head=head, config=CASCADE, home=repo / ".ratchet")


def _by_task(verdict: Verdict) -> dict[str, PairOutcome]:
    return {pair.task_id: pair for pair in verdict.pairs}


def _decisions(verdict: Verdict) -> list[tuple[str, str, str, str]]:
    """What each pair decided and why, without timings."""
    return [(p.task_id, p.outcome, p.decided_by, p.reason) for p in verdict.pairs]


def _judged_regressions(pairs: Iterable[PairOutcome]) -> set[str]:
    """Pairs a judge tier called a regression on their first and only replay."""
    return {p.task_id for p in pairs if p.outcome == "regression" and p.decided_by in JUDGE_TIERS and p.repeats is None}


def _blocks_only_on_the_exact_test(verdict: Verdict) -> None:
    for pair in verdict.pairs:
        if pair.outcome == "regression":
            assert pair.repeats is not None and pair.decided_by == "repeats", pair.reason
            assert pair.repeats.needed is not None and pair.repeats.regressions >= pair.repeats.needed, pair.reason


# -- the base's records make a noisy pair replay again instead of blocking -----------------------------


def test_the_cosmetic_edit_is_invisible_to_a_quiet_simulator(demo_repo: Path) -> None:
    """So every difference the noisy tests below see is the simulator's noise, not the edit."""
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, FX_COSMETIC)
    verdict = check_edit(
        demo_repo,
        base=base,
        head=FX_COSMETIC.branch,
        config=resolve_gate_config("level0_only"),
        home=demo_repo / ".ratchet",
    )
    assert [pair.task_id for pair in verdict.pairs] == list(FX_TASKS)
    assert {pair.outcome for pair in verdict.pairs} == {"same"}


def test_without_records_the_noisy_simulator_blocks_a_cosmetic_edit(demo_repo: Path) -> None:
    """The case the records exist for: one replay's added closing line reads as a regression."""
    base = set_sim_noise(demo_repo, 0.5)
    apply_edit(demo_repo, FX_COSMETIC)
    verdict = _check(demo_repo, base, FX_COSMETIC.branch)
    assert verdict.decision == "BLOCK"
    assert _judged_regressions(verdict.pairs), verdict.summary
    assert all(pair.repeats is None for pair in verdict.pairs)


def test_base_records_turn_one_noisy_replay_into_repeats_not_a_block(demo_repo: Path) -> None:
    noisy = set_sim_noise(demo_repo, 0.5)
    apply_edit(demo_repo, FX_COSMETIC)
    without = _judged_regressions(_check(demo_repo, noisy, FX_COSMETIC.branch).pairs)
    git(demo_repo, "branch", "-q", "-D", FX_COSMETIC.branch)
    base = commit_records(demo_repo, FX_TASKS, repeats=REPEATS)
    apply_edit(demo_repo, FX_COSMETIC)
    verdict = _check(demo_repo, base, FX_COSMETIC.branch)
    pairs = _by_task(verdict)
    assert without
    # Each pair that blocked on one replay is now weighed against its record: replayed again, or passed by
    # judges told that every difference is where this golden is known to vary.
    assert {pairs[task_id].outcome for task_id in without} <= {"inconclusive", "regression", "pass"}
    repeated = {task_id for task_id in without if pairs[task_id].repeats is not None}
    assert repeated
    for task_id in sorted(repeated):
        evidence = pairs[task_id].repeats
        assert evidence is not None
        assert (pairs[task_id].decided_by, evidence.trigger) == ("repeats", "known-variation")
        record = read_record(noise_path(golden_paths(demo_repo)[task_id]))
        assert (evidence.flips, evidence.repeats) == (record.differed, REPEATS)
        assert evidence.outcomes[0] == "regression" and evidence.replays == len(evidence.outcomes)
        assert "every difference is where this golden is known to vary" in pairs[task_id].reason
    assert _judged_regressions(verdict.pairs) == set()
    _blocks_only_on_the_exact_test(verdict)
    assert verdict.decision == "WARN", verdict.summary


def test_check_cli_warns_with_the_numbers_and_exits_0(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    base = commit_records(demo_repo, FX_TASKS, repeats=REPEATS)
    apply_edit(demo_repo, FX_COSMETIC)
    result = runner.invoke(
        app, ["check", "--repo", str(demo_repo), "--base", base, "--head", FX_COSMETIC.branch, "--json"]
    )
    assert result.exit_code == 0, result.stdout
    verdict = json.loads(result.stdout)
    assert verdict["decision"] == "WARN"
    inconclusive = [pair for pair in verdict["pairs"] if pair["outcome"] == "inconclusive"]
    assert inconclusive
    for pair in inconclusive:
        assert pair["repeats"]["trigger"] == "known-variation"
        assert "(Fisher exact, one-sided, p = " in pair["reason"]


# -- only the base's records count ------------------------------------------------------------------


def test_records_committed_only_at_the_head_are_not_used(demo_repo: Path) -> None:
    """An edit cannot declare its own replays noisy: the check is the one without records."""
    base = set_sim_noise(demo_repo, 0.5)
    apply_edit(demo_repo, FX_COSMETIC)
    reference = _check(demo_repo, base, FX_COSMETIC.branch)
    branch = "edit/fx-cosmetic-with-records"
    git(demo_repo, "checkout", "-q", "-b", branch, "main")
    commit_records(demo_repo, FX_TASKS, repeats=REPEATS)
    skill = demo_repo / "skills" / FX_COSMETIC.skill / "SKILL.md"
    commit(
        demo_repo,
        {"skills/fx-expense-converter/SKILL.md": FX_COSMETIC.apply(skill.read_text(encoding="utf-8"))},
        "fx cosmetic, with records that call the noise known",
    )
    git(demo_repo, "checkout", "-q", "main")
    verdict = _check(demo_repo, base, branch)
    assert all(pair.repeats is None for pair in verdict.pairs)
    assert _decisions(verdict) == _decisions(reference)
    assert (verdict.decision, verdict.summary) == (reference.decision, reference.summary)
    assert verdict.decision == "BLOCK"


def test_a_record_of_a_golden_changed_since_it_was_measured_is_ignored(demo_repo: Path) -> None:
    noisy = set_sim_noise(demo_repo, 0.5)
    apply_edit(demo_repo, FX_COSMETIC)
    reference = _by_task(_check(demo_repo, noisy, FX_COSMETIC.branch))
    git(demo_repo, "branch", "-q", "-D", FX_COSMETIC.branch)
    commit_records(demo_repo, FX_TASKS, repeats=REPEATS)
    stale, fresh = "fx-expense-converter-05", "fx-expense-converter-10"
    assert {stale, fresh} <= _judged_regressions(reference.values())
    # Re-blessed after the measurement, with the old record kept beside it: pinned to another golden now.
    path = golden_paths(demo_repo)[stale]
    golden = read_trace(path)
    write_trace(path, golden.model_copy(update={"cost_usd": golden.cost_usd + 0.001}))
    base = commit(demo_repo, {}, "re-bless fx-expense-converter-05, keeping its old noise record")
    assert git(demo_repo, "show", "--stat", "--format=", base).startswith(
        f"goldens/fx-expense-converter/{stale}.json |"
    )
    apply_edit(demo_repo, FX_COSMETIC)
    pairs = _by_task(_check(demo_repo, base, FX_COSMETIC.branch))
    assert pairs[stale].repeats is None
    assert (pairs[stale].outcome, pairs[stale].decided_by, pairs[stale].reason) == (
        reference[stale].outcome,
        reference[stale].decided_by,
        reference[stale].reason,
    )
    assert pairs[fresh].repeats is not None and pairs[fresh].decided_by == "repeats"  # its record is current


# -- records never soften a real regression -----------------------------------------------------------


def test_a_substance_regression_still_blocks_on_its_first_replay(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    base = commit_records(demo_repo, TRIAGE_TASKS, repeats=REPEATS)
    assert any(read_record(noise_path(golden_paths(demo_repo)[t])).known_to_vary for t in TRIAGE_TASKS)
    for branch in ("edit/changed-argument", "edit/narrowed-description"):
        apply_edit(demo_repo, EDIT[branch])
        verdict = _check(demo_repo, base, branch)
        assert verdict.decision == "BLOCK", (branch, verdict.summary)
        assert _judged_regressions(verdict.pairs), (branch, verdict.summary)  # blocked on one replay, no repeats needed
        for pair in verdict.pairs:
            if pair.outcome == "regression" and pair.repeats is not None:
                assert pair.repeats.needed is not None and pair.repeats.regressions >= pair.repeats.needed


def _claims_everything_varies(record: NoiseRecord, golden_output: str) -> NoiseRecord:
    """A record (still pinned to its golden) saying every line, an added line and an email_send vary, always."""
    parts = sorted(
        {
            "call added: email_send",
            "line added",
            *record.varying,
            *(f"line: {' '.join(line.split())}" for line in golden_output.splitlines() if line.strip()),
        }
    )
    return record.model_copy(
        update={
            "differed": record.repeats,
            "varying": dict.fromkeys(parts, record.repeats),
            "runs": [parts] * record.repeats,
        }
    )


def test_a_new_side_effect_blocks_on_the_first_replay_whatever_the_records_say(demo_repo: Path) -> None:
    set_sim_noise(demo_repo, 0.5)
    commit_records(demo_repo, FX_TASKS, repeats=REPEATS)
    goldens = golden_paths(demo_repo)
    for task_id in FX_TASKS:
        path = goldens[task_id]
        write_noise_record(
            noise_path(path), _claims_everything_varies(read_record(noise_path(path)), read_trace(path).final_output)
        )
    traces = {path: read_trace(path) for path in goldens.values()}
    current = load_noise_records(traces)
    assert all(current[t].covers(["call added: email_send"]) for t in FX_TASKS)  # pinned, so the check reads them
    base = commit(demo_repo, {}, "noise records that call an email_send known noise")
    assert git(demo_repo, "status", "--porcelain") == ""  # the forged records are the base's
    edit = EDIT["edit/new-side-effect"]
    apply_edit(demo_repo, edit)
    verdict = _check(demo_repo, base, edit.branch)
    assert verdict.decision == "BLOCK"
    sending = [pair for pair in verdict.pairs if any(f.kind == "new_side_effect" for f in pair.findings)]
    assert len(sending) == 9  # every fx task but fx-expense-converter-10 (its file is missing) reaches the step
    for pair in sending:
        assert (pair.outcome, pair.decided_by, pair.repeats) == ("regression", "level0", None), pair.reason
        assert pair.reason.startswith("hard fail: new send call email_send(")
    assert golden_hash(traces[goldens["fx-expense-converter-01"]]) == current["fx-expense-converter-01"].golden_hash
