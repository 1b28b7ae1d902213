"""`ratchet review` through the CLI: the three modes' pages, and bad input as one line, exit 2."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import Project
from ratchet.core.jsonio import canonical_dumps
from ratchet.gate.check import check_edit
from ratchet.gate.models import EditReplays
from ratchet.goldens.trace import read_trace
from tests.review.conftest import CHANGED_TASK
from tests.review.test_page import _texts


def _review(project: Project, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["review", "--project", str(project.root), *args])
    return result.exit_code, result.stdout, result.stderr


def test_pending_page_is_written_and_byte_identical_twice(changed_argument: Project, tmp_path: Path) -> None:
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    assert _review(changed_argument, "--out", str(first)) == (0, f"wrote {first} (1 item(s), pending)\n", "")
    assert _review(changed_argument, "--out", str(second))[0] == 0
    assert first.read_bytes() == second.read_bytes()
    assert _texts(first.read_text(encoding="utf-8"), "changed-arg")[:2] == [
        'label="priority/normal"',
        'label="priority/medium"',
    ]


def _verdict(project: Project, tmp_path: Path) -> Path:
    verdict = check_edit(
        project.root,
        base="main",
        head="edit/changed-argument",
        home=project.home,
        config=resolve_gate_config("cascade"),
    )
    path = tmp_path / "verdict.json"
    path.write_text(verdict.to_json(), encoding="utf-8")
    return path


def test_verdict_page_shows_findings_and_each_tiers_opinion(changed_argument: Project, tmp_path: Path) -> None:
    verdict = _verdict(changed_argument, tmp_path)
    out = tmp_path / "verdict.html"
    code, stdout, _ = _review(changed_argument, "--verdict", str(verdict), "--out", str(out))
    assert code == 0 and stdout.endswith("item(s), verdict)\n")
    html = out.read_text(encoding="utf-8")
    assert "<h1>Ratchet review: BLOCK</h1>" in html
    assert 'data-tier="nano"' in html and 'data-tier="super"' in html
    assert "replay not kept by `ratchet check`" in html
    assert (
        "github_add_label arguments changed (label: &#x27;priority/normal&#x27; -&gt; &#x27;priority/medium&#x27;)"
        in html
    )
    assert "<button" not in html


def test_verdict_with_replays_is_side_by_side(changed_argument: Project, tmp_path: Path) -> None:
    verdict = _verdict(changed_argument, tmp_path)
    replay = read_trace(changed_argument.pending_dir / f"{CHANGED_TASK}.json")
    replays = tmp_path / "replays.json"
    replays.write_text(
        canonical_dumps(EditReplays(replays={CHANGED_TASK: replay}).model_dump(mode="json")), encoding="utf-8"
    )
    out = tmp_path / "verdict.html"
    assert _review(changed_argument, "--verdict", str(verdict), "--replays", str(replays), "--out", str(out))[0] == 0
    assert _texts(out.read_text(encoding="utf-8"), "changed-arg")[:2] == [
        'label="priority/normal"',
        'label="priority/medium"',
    ]


def test_bad_input_is_one_line_exit_2(changed_argument: Project, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    code, _, err = _review(changed_argument, "--verdict", str(missing), "--labels")
    assert (code, err) == (2, "error: --verdict and --labels exclude each other\n")
    code, _, err = _review(changed_argument, "--replays", str(missing))
    assert (code, err) == (2, "error: --replays goes with --verdict\n")
    code, _, err = _review(changed_argument, "--verdict", str(missing))
    assert code == 2 and str(missing) in err and err.count("\n") == 1
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1}', encoding="utf-8")
    code, _, err = _review(changed_argument, "--verdict", str(bad))
    assert code == 2 and err.startswith(f"error: {bad}") and "not a verdict" in err
