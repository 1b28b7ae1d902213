"""`ratchet bless` says what the blessed skills' goldens would catch: each skill's last mutation score
(goldens/<skill>/mutation.score.json, saved by `ratchet mutate`), and one line suggesting `ratchet mutate`
for the skills that have none."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.goldens.mutation import SCORE_FILE, write_score
from tests.helpers.mutation_scores import good_score

runner = CliRunner()
FX, GH = "fx-expense-converter", "github-triage"


def cli(repo: Path, *args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, [*args, "--project", str(repo), "--work", str(repo / ".ratchet")])
    return result.exit_code, result.stdout, result.stderr


def test_bless_prints_the_last_score_and_suggests_mutate_where_there_is_none(demo_repo: Path) -> None:
    write_score(demo_repo / "goldens", good_score(GH))
    assert cli(demo_repo, "record", f"{GH}-01", f"{FX}-01", "canary-01")[0] == 0
    code, out, err = cli(demo_repo, "bless")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"blessed 3 golden(s) into {demo_repo / 'goldens'}",
        f"{GH}: goldens kill 21 of 24 mutants (88%); R1 8/9, R2 3/3, R3 3/3, R4 3/3, R5 2/3, R6 2/3 "
        f"(at c0ffeec0ff, seed 0, simulated; before this bless: ratchet mutate {GH} measures these goldens)",
        f"no mutation score for {FX}: ratchet mutate {FX} shows which breakages of a skill its goldens "
        "would notice (docs/mutate.md)",
    ]


def test_an_unreadable_score_is_named_and_bless_still_succeeds(demo_repo: Path) -> None:
    (demo_repo / "goldens" / GH / SCORE_FILE).write_text("{not json", encoding="utf-8")
    assert cli(demo_repo, "record", f"{GH}-01")[0] == 0
    code, out, err = cli(demo_repo, "bless")
    assert (code, err) == (0, "")
    [_, line] = out.splitlines()
    assert line.startswith(f"{GH}: no mutation score read: {demo_repo / 'goldens' / GH / SCORE_FILE}:1: not valid JSON")
    assert line.endswith(f": ratchet mutate {GH} measures it again")
