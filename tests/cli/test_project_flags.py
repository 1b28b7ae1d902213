"""--project, --root and --work that name a file, and ratchet.yaml paths outside the project: one line, exit 2.

Each is refused when the project is loaded, before a command reads, writes or (the proxy) serves.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.setup.demo import EDITS, apply_edit
from tests.helpers.gitrepo import commit

runner = CliRunner()
ESCAPE = "schema_version: 1\npaths:\n  skills: ../outside\n"
ESCAPE_ERROR = "paths.skills: must be a relative path inside the project, not '../outside'\n"


@pytest.fixture
def afile(tmp_path: Path) -> Path:
    path = tmp_path / "afile"
    path.write_text("not a folder\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "label", "--status", "--project", "{afile}"],
        ["bench", "selftest", "--root", "{afile}"],
        ["proxy", "--port", "8799", "--project", "{afile}"],
        ["record", "--project", "{afile}"],
    ],
)
def test_a_project_root_that_is_a_file_is_one_line(afile: Path, argv: list[str]) -> None:
    result = runner.invoke(app, [arg.format(afile=afile) for arg in argv])
    assert (result.exit_code, result.stdout) == (2, "")
    assert (
        result.stderr
        == f"error: {afile}: this is a file, but a project root must be the folder that holds ratchet.yaml\n"
    )


def test_bless_with_a_work_area_that_is_a_file_is_one_line(demo_repo: Path, afile: Path) -> None:
    result = runner.invoke(app, ["bless", "--project", str(demo_repo), "--work", str(afile)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.startswith(f"error: {afile}: this is a file, but Ratchet's work area (RATCHET_HOME or --work)")


def test_the_proxy_refuses_a_path_outside_the_project_before_it_serves(demo_repo: Path) -> None:
    (demo_repo / "ratchet.yaml").write_text(ESCAPE, encoding="utf-8")
    result = runner.invoke(app, ["proxy", "--port", "8799", "--project", str(demo_repo)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {demo_repo / 'ratchet.yaml'}: {ESCAPE_ERROR}"


def test_check_refuses_a_base_path_outside_the_project_naming_ratchet_yaml_at_the_base(demo_repo: Path) -> None:
    base = commit(demo_repo, {"ratchet.yaml": ESCAPE}, "skills elsewhere")
    apply_edit(demo_repo, next(e for e in EDITS if e.branch == "edit/changed-argument"))
    result = runner.invoke(app, ["check", "--repo", str(demo_repo), "--base", base, "--level0-only"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: ratchet.yaml@{base[:10]}: {ESCAPE_ERROR}"
