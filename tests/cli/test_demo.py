from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from ratchet.cli import app


def test_demo_gates_five_edits_offline(tmp_path: Path) -> None:
    target = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "--dir", str(target)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert "recorded and blessed 23 goldens on the simulator" in lines
    assert any(line.startswith("ok edit/cosmetic") and " PASS " in line for line in lines)
    assert any(
        line.startswith("ok edit/reworded-status") and " PASS " in line and "decided by: nano" in line for line in lines
    )
    assert any(line.startswith("ok edit/changed-argument") and " BLOCK " in line and "super" in line for line in lines)
    assert any(
        line.startswith("ok edit/new-side-effect") and " BLOCK " in line and "decided by: level0" in line
        for line in lines
    )
    assert any(line.startswith("ok edit/narrowed-description") and " BLOCK " in line for line in lines)
    assert "routing changed: github-triage -> no skill" in " ".join(result.stdout.split())
    assert any(line.startswith("ok edit/cosmetic") and "$0.000000" in line for line in lines)
    assert "SIMULATED MODELS" in result.stdout
    assert "email_send(" in result.stdout
    assert (target / "goldens" / "github-triage" / "github-triage-01.json").is_file()


def test_demo_refuses_a_non_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("keep me", encoding="utf-8")
    result = CliRunner().invoke(app, ["demo", "--dir", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {tmp_path.resolve()} is not empty; give --dir a new or empty folder\n"
    assert (tmp_path / "x").read_text(encoding="utf-8") == "keep me"


def test_demo_refuses_a_file_as_dir(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("keep me", encoding="utf-8")
    for target in (afile, afile / "inner"):
        result = CliRunner().invoke(app, ["demo", "--dir", str(target)])
        assert result.exit_code == 2
        assert result.stderr == f"error: {afile.resolve()} is a file; give --dir a new or empty folder\n"
    assert afile.read_text(encoding="utf-8") == "keep me"
