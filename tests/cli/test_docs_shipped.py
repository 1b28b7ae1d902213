"""Every `docs/...md` page Ratchet's messages name ships in the package, and `ratchet docs` says where.

Why: help, `ratchet init`'s files and messages pointed at docs/world.md and docs/review.md, which
an installed wheel did not have (and the project has no public URL to link instead). The docs
folder is package data now (ratchet/data/docs), so whatever a message names is on the user's disk.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.cli.reference import render_reference
from ratchet.data import packaged

ROOT = Path(__file__).resolve().parents[2]
PAGE = re.compile(r"\bdocs/([A-Za-z0-9_./-]+\.md)\b")
runner = CliRunner()


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes: read by people in the source (help text is taken from --help instead)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _messages() -> dict[str, str]:
    """What Ratchet shows a user, by where it comes from: --help of every command, the files
    `ratchet init` writes, and every string in the package's code that is not a docstring."""
    texts = {"--help": render_reference(app)}
    for path in sorted((ROOT / "ratchet" / "data" / "init").iterdir()):
        texts[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "ratchet").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _docstrings(tree)
        strings = [
            node.value
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
        ]
        texts[path.relative_to(ROOT).as_posix()] = "\n".join(strings)
    return texts


def _named_pages() -> dict[str, set[str]]:
    pages: dict[str, set[str]] = {}
    for where, text in _messages().items():
        for match in PAGE.finditer(text):
            pages.setdefault(match[1], set()).add(where)
    return pages


def test_the_pages_the_issue_names_are_among_those_found() -> None:
    pages = _named_pages()
    assert {"world.md", "review.md"} <= set(pages)
    assert "ratchet/data/init/world-README.md" in pages["world.md"] and "--help" in pages["review.md"]


def test_every_page_a_message_names_ships_in_the_package() -> None:
    missing = {
        page: sorted(where)
        for page, where in _named_pages().items()
        if not packaged("docs", *PurePosixPath(page).parts).is_file()
    }
    assert not missing, f"named but not shipped in ratchet/data/docs: {missing}"


def test_the_shipped_pages_are_the_repositorys_docs() -> None:
    shipped = packaged("docs", "world.md")
    assert shipped.read_text(encoding="utf-8") == (ROOT / "docs" / "world.md").read_text(encoding="utf-8")


def test_ratchet_docs_prints_where_a_page_is_installed() -> None:
    result = runner.invoke(app, ["docs", "world"])
    assert result.exit_code == 0, result.output
    path = Path(result.stdout.rstrip("\n"))
    assert result.stdout.count("\n") == 1 and path.is_absolute() and path.name == "world.md"
    assert path.read_text(encoding="utf-8") == (ROOT / "docs" / "world.md").read_text(encoding="utf-8")
    for spelled in ("world.md", "docs/world.md"):
        assert runner.invoke(app, ["docs", spelled]).stdout == result.stdout
    assert Path(runner.invoke(app, ["docs", "adr/0001-simulator"]).stdout.rstrip("\n")).is_file()


def test_ratchet_docs_alone_prints_the_folder() -> None:
    result = runner.invoke(app, ["docs"])
    assert result.exit_code == 0, result.output
    folder = Path(result.stdout.rstrip("\n"))
    assert (folder / "review.md").is_file() and result.stdout.count("\n") == 1


@pytest.mark.parametrize("name", ["nowhere", "../pyproject", "/etc/passwd", "adr/../../README"])
def test_an_unknown_page_is_one_line_exit_2(name: str) -> None:
    result = runner.invoke(app, ["docs", name])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"error: no page docs/{name}") and result.stderr.count("\n") == 1
    assert "ratchet docs" in result.stderr
