"""docs/adr/README.md indexes every ADR in docs/adr/, and only those, under their own titles.

Why: the index is how a reader finds a decision; an ADR added without a row, or a row left behind
by a renamed file, would make it lie.
"""

from __future__ import annotations

import re
from pathlib import Path

ADR = Path(__file__).resolve().parents[1] / "docs" / "adr"
ROW = re.compile(r"^\| \[(\d{4})\]\(((\d{4})-[a-z0-9-]+\.md)\) \| (.+?) \| (.+?) \| (.+?) \|$", re.M)
HEADING = re.compile(r"^# (?:ADR )?(\d{4})(?::| —|\.) (.+)$")


def index_rows() -> list[tuple[str, str, str]]:
    """(number, file name, title) per row of the index, in order."""
    text = (ADR / "README.md").read_text(encoding="utf-8")
    rows = []
    for number, name, file_number, title, _status, _line in ROW.findall(text):
        assert number == file_number, f"row {number} links {name}"
        rows.append((number, name, title.replace("\\|", "|")))
    return rows


def adr_files() -> list[Path]:
    return sorted(path for path in ADR.glob("*.md") if path.name != "README.md")


def test_every_adr_file_is_listed_and_every_listed_file_exists() -> None:
    listed = [name for _, name, _ in index_rows()]
    assert listed == [path.name for path in adr_files()]


def test_each_row_carries_the_adrs_own_number_and_title() -> None:
    for number, name, title in index_rows():
        heading = HEADING.match((ADR / name).read_text(encoding="utf-8").splitlines()[0])
        assert heading is not None, f"{name}: the first line is not an ADR heading"
        assert (heading[1], heading[2]) == (number, title), name
