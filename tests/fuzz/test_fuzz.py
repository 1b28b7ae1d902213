"""Malformed input in, one clear line and the right exit code out: the fast subset of the fuzz cases.

RATCHET_FUZZ=all runs every generated case (`python -m tests.fuzz.report` prints the summary).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fuzz.cases import Case, all_cases, fast_cases
from tests.fuzz.harness import Templates, run_case

CASES = all_cases() if os.environ.get("RATCHET_FUZZ") == "all" else fast_cases()


@pytest.fixture(scope="session")
def fuzz_templates(tmp_path_factory: pytest.TempPathFactory) -> Templates:
    return Templates(tmp_path_factory.mktemp("fuzz-templates"))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_gets_a_clear_error(case: Case, fuzz_templates: Templates, tmp_path: Path) -> None:
    outcome = run_case(case, tmp_path, fuzz_templates)
    assert not outcome.violations, outcome.explain()


def test_the_cases_are_many_distinct_and_fixed() -> None:
    cases = all_cases()
    assert len(cases) >= 300
    assert len({case.id for case in cases}) == len(cases)
    assert [case.id for case in fast_cases()] == [case.id for case in fast_cases.__wrapped__()]


def _outcome_of(case: Case, stderr: str, home: Path, tmp: Path) -> list[str]:
    from tests.fuzz.harness import Ctx, Outcome, _check_message

    outcome = Outcome(case.id, exit_code=2, stderr=stderr)
    _check_message(case, Ctx(tmp=tmp, repo=tmp / "repo", home=home), outcome)
    return outcome.violations


def test_the_probe_flags_a_scratch_path_a_second_line_and_a_missing_name(tmp_path: Path) -> None:
    case = Case("probe:self", "probe", "none", None, ["check"], must_name="tasks.yaml")
    home = tmp_path / "home"
    assert _outcome_of(case, "error: tasks.yaml@abc123:3: duplicate task id 'a'\n", home, tmp_path) == []
    assert _outcome_of(case, f"error: {home}/scratch/1-2/tasks.yaml:3: duplicate\n", home, tmp_path) == [
        "message: names a path under RATCHET_HOME"
    ]
    assert _outcome_of(case, "error: one\nerror: two\n", home, tmp_path) == [
        "message: expected one line on stderr, got 2",
        "message: does not name 'tasks.yaml'",
    ]


def test_the_probe_sees_a_file_written_in_the_tree_or_the_pending_traces(tmp_path: Path) -> None:
    from tests.fuzz.harness import Ctx, changed, snapshot

    ctx = Ctx(tmp=tmp_path, repo=tmp_path / "repo", home=tmp_path / "home")
    ctx.write("goldens/a/x.json", "{}")
    before = snapshot(ctx, ())
    ctx.write("goldens/a/x.json", "[]")
    ctx.home_write("pending/y.json", "{}")
    ctx.write(".x.json.tmp", "half")
    assert changed(before, snapshot(ctx, ())) == ["+$RATCHET_HOME/pending/y.json", "+.x.json.tmp", "~goldens/a/x.json"]
