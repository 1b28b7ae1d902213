from __future__ import annotations

from pathlib import Path

from ratchet.cli import app
from ratchet.cli.reference import render_reference

ROOT = Path(__file__).resolve().parents[2]


def test_cli_reference_is_current() -> None:
    expected = render_reference(app)
    actual = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/cli.md is stale: run `.venv/bin/python -m ratchet.cli.reference`"
