"""A skill's mutation score sits beside its goldens (goldens/<skill>/mutation.score.json) and is no golden.

Why: every reader of the goldens folder took each *.json in it for a golden (a noise record excepted), so
the first score a team committed would have broken every check, bless and bench load with a GoldenError.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ratchet.core.errors import GoldenError
from ratchet.gate.base_state import goldens_count
from ratchet.goldens.mutation import (
    SCORE_FILE,
    load_scores,
    parse_score,
    read_score,
    write_score,
)
from ratchet.goldens.trace import load_golden_files, load_goldens
from tests.helpers.mutation_scores import blind_score, good_score

REPO_GOLDENS = Path(__file__).resolve().parents[2] / "goldens"
TRIAGE = "github-triage"


def test_the_goldens_loaders_skip_the_score_file(tmp_path: Path) -> None:
    goldens = tmp_path / "goldens"
    shutil.copytree(REPO_GOLDENS, goldens)
    before = load_goldens(goldens)
    path = write_score(goldens, blind_score(TRIAGE))
    assert path == goldens / TRIAGE / SCORE_FILE
    assert load_goldens(goldens) == before
    assert len(load_golden_files(goldens)) == len(before)
    contents = {p: p.read_bytes() for p in goldens.rglob("*") if p.is_file()}
    assert set(load_golden_files(goldens, contents)) == set(load_golden_files(goldens))
    assert goldens_count(None, goldens) == len(before)
    as_git = {f"goldens/{p.relative_to(goldens).as_posix()}": data for p, data in contents.items()}
    assert goldens_count(as_git, goldens) == len(before)


def test_a_score_round_trips_byte_for_byte(tmp_path: Path) -> None:
    score = blind_score(TRIAGE)
    path = write_score(tmp_path, score)
    text = path.read_text(encoding="utf-8")
    assert text == score.to_json() and text.endswith("}\n")
    assert '"limit"' not in text  # no --limit: left out, not null
    assert read_score(tmp_path, TRIAGE) == score
    assert read_score(tmp_path, "fx-expense-converter") is None
    assert load_scores(tmp_path) == {TRIAGE: score}
    assert load_scores(tmp_path, {path: path.read_bytes()}) == {TRIAGE: score}
    assert score.kills_none and score.survived_classes == ["R1", "R5"]
    assert score.line() == "goldens kill 0 of 2 mutants (0%); R1 0/1, R5 0/1"
    assert score.measured() == "at c0ffeec0ff, seed 0, simulated"


def test_the_line_rounds_half_up_and_names_every_class() -> None:
    score = good_score(TRIAGE).model_copy(update={"limit": 24})
    assert score.line() == "goldens kill 21 of 24 mutants (88%); R1 8/9, R2 3/3, R3 3/3, R4 3/3, R5 2/3, R6 2/3"
    assert score.measured() == "at c0ffeec0ff, seed 0, --limit 24, simulated"
    assert not score.kills_none and score.survived_classes == ["R1", "R5", "R6"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"schema_version": 2}', "unsupported mutation score schema_version 2 (this Ratchet reads 1)"),
        (
            blind_score(TRIAGE)
            .to_json()
            .replace('"killed": 0,\n  "schema_version"', '"killed": 3,\n  "schema_version"'),
            "more mutants killed than checked",
        ),
        (blind_score(TRIAGE).to_json().replace('"checked": 2', '"checked": 1'), "do not add up"),
    ],
)
def test_a_malformed_score_is_one_golden_error_line(text: str, message: str) -> None:
    with pytest.raises(GoldenError) as caught:
        parse_score(text, source="goldens/github-triage/mutation.score.json")
    line = caught.value.one_line()
    assert "\n" not in line and message in line, line
    assert line.startswith("goldens/github-triage/mutation.score.json")
