"""`ratchet mutate` on the demo with the shipped operators (ratchet.mutate.operators): a score per skill and
class, the same bytes and $0 on a second run. `--limit 2` per skill keeps it to four checks."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.mutate.models import MutationReport

runner = CliRunner()


def test_the_demo_scores_per_skill_and_class_and_reruns_for_free(demo_repo: Path, tmp_path: Path) -> None:
    args = ["mutate", "--repo", str(demo_repo), "--limit", "2", "--seed", "5"]
    first = runner.invoke(app, [*args, "--out", str(tmp_path / "first")])
    assert first.exit_code == 0, first.stderr
    report = MutationReport.model_validate_json((tmp_path / "first" / "mutation.json").read_text(encoding="utf-8"))
    assert [s.skill for s in report.skills] == ["fx-expense-converter", "github-triage"]
    for score in report.skills:
        # Two mutants each, from two classes (taken in turn), every one checked.
        assert score.killed + score.survived == 2 and len(score.by_class) == 2
        assert score.errors == score.unchecked == 0
    assert all(o.mutant.id.startswith(f"{o.mutant.skill}/") and o.mutant.diff for o in report.outcomes)
    assert not first.stderr.rstrip().endswith("spent $0.000000")
    second = runner.invoke(app, [*args, "--out", str(tmp_path / "second")])
    assert second.exit_code == 0, second.stderr
    assert second.stderr.rstrip().endswith("spent $0.000000")
    for name in ("mutation.json", "mutation.md"):
        assert (tmp_path / "second" / name).read_bytes() == (tmp_path / "first" / name).read_bytes()
