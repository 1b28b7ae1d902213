"""The PR comment shows each edited skill's mutation score as the BASE revision keeps it
(goldens/<skill>/mutation.score.json, saved by `ratchet mutate`), or says none was measured there.

Read from the base, as the gate reads everything it gates with (docs/adr/0011): an edit cannot bring its
own score. A base the comment cannot read is said in one line; the comment is posted all the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.ci.comment import base_scores, comment_body
from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.gate.check import check_edit
from ratchet.gate.models import Verdict
from ratchet.goldens.mutation import SCORE_FILE
from ratchet.outputs.markdown import render_markdown
from tests.helpers.fake_github import BOT, FakeGitHub
from tests.helpers.gitrepo import commit, git
from tests.helpers.mutation_scores import blind_score, good_score

FX, GH = "fx-expense-converter", "github-triage"
TOKEN = "ghs_cli_secret_0123456789"
runner = CliRunner()


def verdict(base: str, *skills: str) -> Verdict:
    return Verdict(
        base=base,
        head="b" * 40,
        skills_changed=list(skills),
        decision="PASS",
        summary="no difference from the goldens",
        gate_config="cascade",
    )


def test_the_body_names_each_edited_skill_s_score_or_its_absence() -> None:
    shown = verdict("a" * 40, GH, FX)
    body = comment_body(shown, mutation={GH: good_score(GH), FX: None})
    assert body == render_markdown(shown) + (
        "\n**Mutation score** of the edited skills at the base `aaaaaaaaaa` (docs/mutate.md):\n\n"
        f"- {GH}: goldens kill 21 of 24 mutants (88%); R1 8/9, R2 3/3, R3 3/3, R4 3/3, R5 2/3, R6 2/3 "
        "(at c0ffeec0ff, seed 0, simulated)\n"
        f"- {FX}: none measured: `ratchet mutate {FX}` saves it; commit it with the goldens\n"
    )


def test_goldens_that_kill_nothing_are_said_so() -> None:
    body = comment_body(verdict("a" * 40, GH), mutation={GH: blind_score(GH)})
    assert body.endswith(
        f"- {GH}: goldens kill 0 of 2 mutants (0%); R1 0/1, R5 0/1 (at c0ffeec0ff, seed 0, simulated): "
        "these goldens would not notice this kind of change\n"
    )


def test_a_base_that_cannot_be_read_is_one_line() -> None:
    body = comment_body(verdict("a" * 40, GH), mutation="no commit aaaaaaaaaa in the repository")
    assert body.endswith("\n_Mutation score not read at the base: no commit aaaaaaaaaa in the repository._\n")


def test_no_edited_skill_no_block() -> None:
    shown = verdict("a" * 40)
    assert comment_body(shown, mutation={}) == render_markdown(shown)


def test_the_scores_are_read_at_the_base_not_the_head(demo_repo: Path) -> None:
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": good_score(GH).to_json()}, "score")
    commit(demo_repo, {f"goldens/{FX}/{SCORE_FILE}": good_score(FX).to_json()}, "a score the edit brings")
    assert base_scores(demo_repo, verdict(base, GH, FX)) == {GH: good_score(GH), FX: None}
    bad = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": "{not json"}, "a broken score")
    found = base_scores(demo_repo, verdict(bad, GH))
    assert isinstance(found, str) and found.startswith(f"goldens/{GH}/{SCORE_FILE}@{bad[:10]}:1: not valid JSON")
    missing = base_scores(demo_repo, verdict("0" * 40, GH))
    assert isinstance(missing, str) and "0000000000" in missing


@pytest.fixture
def event(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps({"number": 7, "pull_request": {"number": 7}}), encoding="utf-8")
    for name in ("GITHUB_API_URL", "GITHUB_SERVER_URL", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/skills")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
    return path


def test_ci_comment_reads_the_score_from_the_repository_at_the_verdicts_base(
    demo_repo: Path, event: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": good_score(GH).to_json()}, "score")
    written = tmp_path / "verdict.json"
    written.write_text(verdict(base, GH).to_json(), encoding="utf-8")
    with FakeGitHub(token=TOKEN) as gh:
        monkeypatch.setenv("GITHUB_API_URL", gh.base_url)
        result = runner.invoke(app, ["ci", "comment", "--verdict", str(written), "--repo", str(demo_repo)])
        [body] = [c.body for c in gh.comments(7) if c.author == BOT]
    assert result.exit_code == 0, result.stderr
    assert f"- {GH}: goldens kill 21 of 24 mutants (88%)" in body
    assert git(demo_repo, "status", "--porcelain") == ""  # the repository is only read


def test_a_malformed_score_says_the_line_the_verdict_notes(demo_repo: Path) -> None:
    """The comment names a bad base score in the words the check's note uses; another skill's bad score is not
    read at all, by either."""
    other = commit(demo_repo, {f"goldens/{FX}/{SCORE_FILE}": '{"schema_version": 1}'}, "another skill's bad score")
    assert base_scores(demo_repo, verdict(other, GH)) == {GH: None}
    bad = commit(demo_repo, {f"goldens/{GH}/{SCORE_FILE}": '{"schema_version": 1}'}, "a bad score")
    rel = f"skills/{GH}/SKILL.md"
    commit(demo_repo, {rel: (demo_repo / rel).read_text(encoding="utf-8") + "\nAlways label the issue.\n"}, "edit")
    checked = check_edit(demo_repo, base=bad, config=resolve_gate_config("level0_only"))
    [note] = [u.detail for u in checked.unseen if u.kind == "mutation"]
    assert note == f"goldens/{GH}/{SCORE_FILE}@{bad[:10]}: invalid mutation score: skill: Field required"
    said = base_scores(demo_repo, verdict(bad, GH))
    assert said == note
    assert comment_body(verdict(bad, GH), mutation=said).endswith(
        f"\n_Mutation score not read at the base: {note.replace('_', chr(92) + '_')}._\n"
    )
