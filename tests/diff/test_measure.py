"""The classifier's measurement: the corpus loads, and precision and recall are the plain arithmetic."""

from __future__ import annotations

from pathlib import Path

from ratchet.diff.effects import tool_catalog
from ratchet.diff.measure import BENCH_TYPE_KINDS, Outcome, read_corpus, score_bench, score_exact
from ratchet.diff.models import DiffKind
from ratchet.diff.scripts import Analysers

ROOT = Path(__file__).resolve().parents[2]
A, C = DiffKind.ACTION_ADDED, DiffKind.CONSTANT_CHANGED


def outcome(group: str, expected: list[DiffKind], found: list[DiffKind], floors: bool = False) -> Outcome:
    return Outcome(
        id=f"{group}-{len(found)}", group=group, expected=expected, found=found, floors=floors, mentioned=True
    )


def test_the_corpus_holds_at_least_25_labelled_free_form_edits_that_all_diff(tmp_path: Path) -> None:
    corpus = read_corpus(ROOT / "bench/diff-corpus")
    assert len(corpus) >= 25
    assert {edit.harness for edit in corpus} == {"minimal", "claude-code", "codex"}
    assert any(not edit.expected for edit in corpus)
    catalog, none = tool_catalog(), Analysers(bandit=None, shellcheck=None)
    for edit in corpus:
        diff = edit.diff(catalog=catalog, analysers=none, scratch=tmp_path / edit.id)
        assert diff.status in ("changed", "cosmetic")


def test_exact_scores_count_each_kind_per_edit() -> None:
    scores = {s.kind: s for s in score_exact([outcome("corpus", [A], [A, C]), outcome("corpus", [A, C], [])])}
    assert (scores[A].true_positive, scores[A].false_positive, scores[A].false_negative) == (1, 0, 1)
    assert (scores[C].precision, scores[C].recall) == (0.0, 0.0)
    assert scores[A].precision == 1.0 and scores[A].recall == 0.5


def test_bench_scores_a_type_caught_by_any_of_its_kinds_and_controls_by_their_findings() -> None:
    outcomes = [
        outcome("R4", [], [A]),
        outcome("R4", [], []),
        outcome("R1", [], [C]),
        outcome("N0", [], [DiffKind.INSTRUCTION_CHANGED]),
        outcome("N0", [], [A], floors=True),
    ]
    caught, precision, controls = score_bench(outcomes)
    assert caught == {"R1": (1, 1), "R4": (1, 2)}
    action = next(s for s in precision if s.kind is A)
    assert (action.true_positive, action.false_positive) == (1, 1)
    assert controls == {"N0": (2, 2, 1), "D1": (0, 0, 0), "F0": (0, 0, 0)}


def test_every_benchmark_type_is_mapped() -> None:
    assert set(BENCH_TYPE_KINDS) == {"R1", "R2", "R3", "R4", "R5", "R6", "R7", "N0", "D1", "F0"}
