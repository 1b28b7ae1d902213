"""The shipped goldens' mutation score in the bench report: per skill and class, beside the skill's recall.

Hand-made results show the section renders from the summary alone, byte for byte, that results written before
the bench measured it still render (with a "not measured" line) and keep their bytes, and what the sentence on
how the two measures relate says. On the mini dataset, `ratchet bench mutate` runs `ratchet mutate` over the
shipped goldens and a rerun writes the same bytes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from scipy.stats import spearmanr  # type: ignore[import-untyped]
from typer.testing import CliRunner

from ratchet import SIMULATED_BANNER
from ratchet.bench.data.mutation import KilledChecked, MutationRun, MutationSkill
from ratchet.bench.data.results import (
    REPORT_FILE,
    RESULTS_FILE,
    SUMMARY_FILE,
    BenchConfigRun,
    BenchResults,
    ScoredEdit,
    read_results,
    write_results,
)
from ratchet.bench.data.summary import compact_results, read_summary, summary_text
from ratchet.bench.report.mutation import TITLE, spearman
from ratchet.bench.report.report import write_report
from ratchet.bench.run.mutation import measure_mutation
from ratchet.cli import app
from ratchet.core.errors import InputError
from ratchet.gate.models import Decision, Verdict
from tests.bench.fixtures_mini import mini_copy, run_packaged

HEADING = f"## {TITLE}"
TYPES = ("R1", "R2", "R3", "R4", "R5", "R6")


def section(report: str) -> str:
    start = report.index(HEADING)
    return report[start : report.index("\n## ", start + 1)]


def _skill(name: str, killed: dict[str, int], checked: int = 2) -> MutationSkill:
    by_class = {t: KilledChecked(killed=killed.get(t, checked), checked=checked) for t in TYPES}
    return MutationSkill(
        skill=name,
        killed=sum(c.killed for c in by_class.values()),
        checked=sum(c.checked for c in by_class.values()),
        by_class=by_class,
    )


def _edits(skill: str, missed: tuple[str, ...] = ()) -> dict[str, ScoredEdit]:
    """One labeled regression edit per type for `skill`, decided BLOCK except the `missed` types (PASS)."""
    edits = {}
    for edit_type in TYPES:
        decision: Decision = "PASS" if edit_type in missed else "BLOCK"
        edit_id = f"{skill}.{edit_type}.0"
        verdict = Verdict(base="b", head=edit_id, skills_changed=[skill], decision=decision, summary="", pairs=[])
        edits[edit_id] = ScoredEdit(
            edit_id=edit_id, type=edit_type, skill=skill, verdict=verdict, expected_decision="BLOCK"
        )
    return edits


def _results(mutation: MutationRun | None, missed: dict[str, tuple[str, ...]]) -> BenchResults:
    edits: dict[str, ScoredEdit] = {}
    for skill, types in missed.items():
        edits.update(_edits(skill, types))
    run = BenchConfigRun(config="cascade", command="cmd cascade", simulated=True, edits=edits)
    return BenchResults(dataset_digest="d" * 64, runs={"cascade": run}, mutation=mutation)


MUTATION = MutationRun(
    command="ratchet bench mutate --limit 12 --seed 0",
    limit=12,
    dropped_equivalent=3,
    skills=[
        _skill("alpha", {"R1": 1, "R5": 0}),
        _skill("beta", {}),
        _skill("gamma", {"R6": 1}),
    ],
)
MISSED = {"alpha": ("R1", "R2"), "beta": (), "gamma": ("R5",)}


def test_the_section_sets_each_skill_beside_its_recall_and_renders_from_the_summary_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_results(out, _results(MUTATION, MISSED))
    first = write_report(out).read_bytes()
    mine = section(first.decode())
    assert mine.startswith(f"{HEADING}\n\n> **{SIMULATED_BANNER}**\n\n_Computed by `ratchet.mutate.run.mutate_project`")
    assert "`ratchet bench mutate --limit 12 --seed 0`: `ratchet mutate` over the shipped goldens" in mine
    assert "at most 12 mutants per skill, taken in turn from each class (2 of each" in mine
    assert (
        "| skill | mutation score | R1 killed | R2 killed | R3 killed | R4 killed | R5 killed | R6 killed | "
        "detection recall | R1 detected | R2 detected | R3 detected | R4 detected | R5 detected | R6 detected |"
    ) in mine
    assert (
        "| alpha | 75.0% (9/12) | 1/2 | 2/2 | 2/2 | 2/2 | 0/2 | 2/2 | 66.7% (4/6) | 0/1 | 0/1 | 1/1 | 1/1 | 1/1 | 1/1 |"
    ) in mine
    assert "| beta | 100.0% (12/12) | 2/2 | 2/2 | 2/2 | 2/2 | 2/2 | 2/2 | 100.0% (6/6) | 1/1 |" in mine
    assert (
        "| all | 88.9% (32/36) | 5/6 | 6/6 | 6/6 | 6/6 | 4/6 | 5/6 | 83.3% (15/18) | 2/3 | 2/3 | 3/3 | 3/3 | 2/3 | 3/3 |"
        in mine
    )
    assert "Spearman's rank correlation of mutation score and detection recall over the 3 skills is +1.00" in mine
    assert "- 3 equivalent mutant(s) dropped before running" in mine

    summary = (out / SUMMARY_FILE).read_text(encoding="utf-8")
    assert '"kind":"mutation"' in summary and summary.count('"kind":"mutation_skill"') == 3
    assert read_summary(out).mutation == MUTATION
    assert summary_text(compact_results(read_summary(out))) == summary  # a summary compacts to itself
    (out / RESULTS_FILE).unlink()
    assert write_report(out).read_bytes() == first  # from the summary alone, byte for byte
    assert write_report(out).read_bytes() == first


def test_results_written_before_it_keep_their_bytes_and_say_not_measured(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_results(out, _results(None, MISSED))
    assert '"mutation"' not in (out / RESULTS_FILE).read_text(encoding="utf-8")
    mine = section(write_report(out).read_text(encoding="utf-8"))
    assert mine.endswith(
        "Not measured: these results were written before the bench measured the goldens' mutation score; "
        "run `ratchet bench mutate` (or `ratchet bench smoke`).\n"
    )
    assert "mutation" not in (out / SUMMARY_FILE).read_text(encoding="utf-8")
    (out / RESULTS_FILE).unlink()
    assert section((write_report(out)).read_text(encoding="utf-8")) == mine


def test_when_recall_does_not_vary_it_says_why_nothing_can_be_ranked(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_results(out, _results(MUTATION, {"alpha": (), "beta": (), "gamma": ()}))
    mine = section(write_report(out).read_text(encoding="utf-8"))
    assert (
        "How the two relate: they cannot be ranked against each other here, since the cascade run's detection "
        "recall is 100.0% on all 3 skills while the mutation score ranges from 75.0% to 100.0%; the bench keeps an "
        "injected regression only when replaying it makes a golden diverge"
    ) in mine


def test_with_fewer_than_three_skills_or_no_cascade_run_no_relation_is_computed(tmp_path: Path) -> None:
    few = MUTATION.model_copy(update={"skills": MUTATION.skills[:2]})
    out = tmp_path / "few"
    out.mkdir()
    write_results(out, _results(few, MISSED))
    assert "not computed, 2 skill(s) with both measures (a rank needs 3)" in write_report(out).read_text("utf-8")
    none = tmp_path / "none"
    none.mkdir()
    results = _results(MUTATION, MISSED)
    results.runs = {"nano_only": results.runs["cascade"].model_copy(update={"config": "nano_only"})}
    write_results(none, results)
    mine = section(write_report(none).read_text(encoding="utf-8"))
    assert "How the two relate: not computed, no `cascade` run in these results." in mine
    assert "| alpha | 75.0% (9/12) | 1/2 | 2/2 | 2/2 | 2/2 | 0/2 | 2/2 | n/a | - | - |" in mine


@pytest.mark.parametrize(
    ("xs", "ys"),
    [
        ([0.75, 1.0, 0.9], [0.5, 1.0, 0.8]),
        ([0.75, 1.0, 1.0, 0.9, 0.9], [1.0, 0.5, 0.8, 0.8, 0.2]),
        ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [2, 1, 4, 3, 6, 5, 8, 7, 10, 9]),
    ],
)
def test_the_rank_correlation_is_spearmans_with_ties_averaged(xs: list[float], ys: list[float]) -> None:
    assert spearman(xs, ys) == pytest.approx(float(spearmanr(xs, ys).statistic))


def test_a_mutation_skill_line_without_its_head_is_one_input_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    write_results(out, _results(MUTATION, MISSED))
    write_report(out)
    lines = (out / SUMMARY_FILE).read_text(encoding="utf-8").splitlines()
    (out / SUMMARY_FILE).write_text("\n".join(x for x in lines if '"kind":"mutation"' not in x) + "\n", "utf-8")
    with pytest.raises(InputError, match="a mutation_skill line needs a mutation line before it"):
        read_summary(out)


@pytest.fixture(scope="module")
def measured(mini_template: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    """The mini dataset with a cascade run and `ratchet bench mutate --limit 6` over it: root, out, summary bytes."""
    mp = pytest.MonkeyPatch()
    mp.setenv("RATCHET_UPSTREAM", "sim")
    mp.delenv("RATCHET_HOME", raising=False)
    try:
        root = mini_copy(mini_template, tmp_path_factory.mktemp("mutation") / "root")
        out = root / "out"
        run_packaged(root, "cascade", out)
        result = CliRunner().invoke(app, ["bench", "mutate", "--root", str(root), "--out", str(out), "--limit", "6"])
        assert result.exit_code == 0, result.output
    finally:
        mp.undo()
    return root, out, (out / SUMMARY_FILE).read_bytes()


def test_bench_mutate_scores_the_shipped_goldens_of_each_skill_into_the_results(
    measured: tuple[Path, Path, bytes],
) -> None:
    root, out, _ = measured
    mutation = read_results(out).mutation
    assert mutation is not None
    assert mutation.command == "ratchet bench mutate --limit 6 --seed 0" and mutation.simulated
    assert [s.skill for s in mutation.skills] == ["fx-expense-converter", "github-triage"]
    for skill in mutation.skills:
        assert skill.checked + skill.errors + skill.unchecked == 6 and skill.errors == skill.unchecked == 0
        assert 0 < skill.killed <= skill.checked
        assert sum(c.checked for c in skill.by_class.values()) == skill.checked
    mine = section((out / REPORT_FILE).read_text(encoding="utf-8"))
    assert "| fx-expense-converter | " in mine and "| github-triage | " in mine
    assert "not computed, 2 skill(s) with both measures (a rank needs 3)" in mine
    assert not (root / "skills" / "github-triage" / "mutation.score.json").exists()  # the project is only read


def test_a_rerun_writes_the_same_bytes(measured: tuple[Path, Path, bytes], monkeypatch: pytest.MonkeyPatch) -> None:
    root, out, summary = measured
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    result = CliRunner().invoke(app, ["bench", "mutate", "--root", str(root), "--out", str(out), "--limit", "6"])
    assert result.exit_code == 0, result.output
    assert (out / SUMMARY_FILE).read_bytes() == summary


def test_bench_mutate_adds_to_a_folder_holding_the_summary_alone(
    measured: tuple[Path, Path, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out, summary = measured
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(out / SUMMARY_FILE, alone / SUMMARY_FILE)
    results = read_summary(alone)
    results.mutation = None
    (alone / SUMMARY_FILE).write_text(summary_text(results), encoding="utf-8")
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    result = CliRunner().invoke(app, ["bench", "mutate", "--root", str(root), "--out", str(alone), "--limit", "6"])
    assert result.exit_code == 0, result.output
    assert (alone / SUMMARY_FILE).read_bytes() == summary
    assert sorted(p.name for p in alone.iterdir()) == ["cost_vs_recall.svg", REPORT_FILE, SUMMARY_FILE]


def test_bench_mutate_refuses_a_folder_without_results_or_of_another_dataset(
    measured: tuple[Path, Path, bytes], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out, _ = measured
    monkeypatch.setenv("RATCHET_UPSTREAM", "sim")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(app, ["bench", "mutate", "--root", str(root), "--out", str(empty)])
    assert result.exit_code == 2
    assert result.output == f"error: no results in {empty}: run `ratchet bench smoke` (or `ratchet bench run`) first\n"
    other = tmp_path / "other"
    shutil.copytree(out, other)
    results = read_results(other)
    digest = results.dataset_digest
    results.dataset_digest = "0" * 64
    write_results(other, results)
    result = CliRunner().invoke(app, ["bench", "mutate", "--root", str(root), "--out", str(other)])
    assert result.exit_code == 2
    assert result.output == (
        f"error: {other} holds results for dataset 000000000000, not {digest[:12]} (the data at {root}): "
        "re-run `ratchet bench smoke`\n"
    )


def test_measuring_the_score_does_not_leave_the_upstream_set_for_the_rest_of_the_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Scoped to the measurement: a later run in the same process keeps the upstream the shell gave it.
    monkeypatch.setenv("RATCHET_UPSTREAM", "live")
    with pytest.raises(InputError):
        measure_mutation(tmp_path / "no-project", work=tmp_path / "work")
    assert os.environ["RATCHET_UPSTREAM"] == "live"
    monkeypatch.delenv("RATCHET_UPSTREAM")
    with pytest.raises(InputError):
        measure_mutation(tmp_path / "no-project", work=tmp_path / "work")
    assert "RATCHET_UPSTREAM" not in os.environ
