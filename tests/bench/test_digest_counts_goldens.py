"""The dataset digest counts goldens, not the files beside them: a noise record or a mutation score
(goldens/<skill>/mutation.score.json, saved by `ratchet mutate`) is no golden."""

from __future__ import annotations

from pathlib import Path

from ratchet.bench.data.dataset import BenchPaths
from ratchet.bench.data.digest import record_digest
from ratchet.goldens.mutation import write_score
from tests.helpers.mutation_scores import good_score


def test_a_mutation_score_beside_the_goldens_is_not_counted(mini: Path) -> None:
    paths = BenchPaths.at(mini)
    before = record_digest(paths).goldens
    skill = sorted(p.name for p in paths.goldens.iterdir() if p.is_dir() and p.name != "_none")[0]
    write_score(paths.goldens, good_score(skill))
    assert record_digest(paths).goldens == before > 0
