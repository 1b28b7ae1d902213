"""`ratchet check --format/--output` on the demo repo: three reports from one run, written on BLOCK
and on exit 3 too, and a bad FORMAT=FILE refused in one line before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml
from markdown_it import MarkdownIt
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import git

runner = CliRunner()
SCHEMA = json.loads((Path(__file__).parents[2] / "docs" / "schema" / "verdict.json").read_text(encoding="utf-8"))
EDIT = "edit/new-side-effect"


def check(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", "--repo", str(repo), *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def blocked(demo_repo: Path) -> tuple[Path, str]:
    base = git(demo_repo, "rev-parse", "main")
    apply_edit(demo_repo, next(e for e in EDITS if e.branch == EDIT))
    return demo_repo, base


def test_one_check_writes_junit_markdown_and_json_and_still_blocks(blocked: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = blocked
    out = tmp_path / "reports"
    code, stdout, err = check(
        repo,
        "--base",
        base,
        "--head",
        EDIT,
        "--output",
        f"junit={out / 'ratchet.xml'}",
        "--output",
        f"markdown={out / 'ratchet.md'}",
        "--output",
        f"json={out / 'verdict.json'}",
    )
    assert code == 1, (stdout[-800:], err)
    assert sorted(p.name for p in out.iterdir()) == ["ratchet.md", "ratchet.xml", "verdict.json"]  # no temp left
    verdict = json.loads((out / "verdict.json").read_text(encoding="utf-8"))
    jsonschema.validate(verdict, SCHEMA)
    assert verdict["decision"] == "BLOCK"
    [suite] = list(JUnitXml.fromfile(str(out / "ratchet.xml")))
    failed = [case.name for case in suite if any(isinstance(r, Failure) for r in case.result)]
    assert failed == [p["task_id"] for p in verdict["pairs"] if p["outcome"] == "regression"] and len(failed) == 9
    markdown = (out / "ratchet.md").read_text(encoding="utf-8")
    assert markdown.startswith("❌ **Ratchet: BLOCK** · 9 regression(s)")
    rows = [t for t in MarkdownIt("commonmark").enable("table").parse(markdown) if t.type == "tr_open"]
    assert len(rows) == 3  # the header, ONE row for the email_send all nine tasks added, one for the outbox it filled
    assert "| new side-effecting call email\\_send \\[send\\] | hard | regression x9 | 9 tasks: " in markdown
    assert "| final state changed: email.outbox | diff | regression x9 | 9 tasks: " in markdown
    assert markdown.count("<details>") == 9
    assert "9 tasks   regression (level0)" in stdout  # the terminal still gets the (grouped) table


def test_format_sets_what_the_terminal_gets_and_json_is_its_alias(blocked: tuple[Path, str]) -> None:
    repo, base = blocked
    code, as_markdown, _ = check(repo, "--base", base, "--head", EDIT, "--format", "markdown")
    assert code == 1 and as_markdown.startswith("❌ **Ratchet: BLOCK**")
    code, by_format, _ = check(repo, "--base", base, "--head", EDIT, "--format", "json")
    code_alias, by_alias, _ = check(repo, "--base", base, "--head", EDIT, "--json")
    assert (code, code_alias) == (1, 1)

    def outcomes(text: str) -> list[tuple[str, str, str]]:  # latency is wall time: it differs per run
        return [(p["task_id"], p["outcome"], p["reason"]) for p in json.loads(text)["pairs"]]

    assert outcomes(by_format) == outcomes(by_alias) and len(outcomes(by_alias)) == 10
    code, as_junit, _ = check(repo, "--base", base, "--head", EDIT, "--format", "junit")
    assert code == 1 and as_junit.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')


def test_reports_are_written_when_the_check_exits_3(blocked: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = blocked
    report = tmp_path / "verdict.json"
    code, _, err = check(
        repo,
        "--base",
        base,
        "--head",
        EDIT,
        "--cache",
        "none",
        "--work",
        str(tmp_path / "empty"),
        "--output",
        f"json={report}",
        "--output",
        f"junit={tmp_path / 'r.xml'}",
    )
    assert code == 3 and err.startswith("error: ")
    assert {p["outcome"] for p in json.loads(report.read_text(encoding="utf-8"))["pairs"]} == {"error"}
    [suite] = list(JUnitXml.fromfile(str(tmp_path / "r.xml")))
    # Every pair is an error; before them, the diff's lines (ratchet.diff), the added email_send among them.
    assert suite.errors == len([case for case in suite if case.classname != "ratchet.diff"])


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            "junit",
            "--output 'junit' is not FORMAT=FILE; FORMAT is one of table, json, markdown, junit, "
            "e.g. --output junit=ratchet.xml",
        ),
        (
            "html=r.html",
            "--output 'html=r.html': unknown format 'html'; use one of table, json, markdown, junit, "
            "e.g. --output junit=ratchet.xml",
        ),
        ("junit=", "--output 'junit=' is not FORMAT=FILE"),
    ],
)
def test_a_bad_output_is_one_line_before_anything_runs(tmp_path: Path, spec: str, said: str) -> None:
    # The revision does not exist: had anything run before the --output check, that would be the error.
    code, _, err = check(tmp_path, "--base", "no-such-rev", "--output", spec)
    assert code == 2 and err.startswith(f"error: {said}") and err.count("\n") == 1


def test_two_outputs_to_one_file_are_refused(tmp_path: Path) -> None:
    code, _, err = check(tmp_path, "--base", "x", "--output", "json=r.out", "--output", "junit=r.out")
    assert code == 2 and err == "error: --output names r.out twice (json and junit); give each format its own file\n"


def test_json_with_another_format_is_a_contradiction(tmp_path: Path) -> None:
    code, _, err = check(tmp_path, "--base", "x", "--json", "--format", "junit")
    assert code == 2 and err == "error: --json is --format json; it contradicts --format junit: give one of them\n"
