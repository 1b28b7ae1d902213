"""docs/architecture.md draws the import contracts in pyproject.toml, and cannot drift from them.

Why: the page is where a newcomer learns the package order and the gate's stages; lint-imports
enforces the order but not the page. Here the page's numbered package list must equal the
`packages` contract's layers, line for line, every package folder of ratchet/ must be in it, and the
stage order it quotes must be the `gate stages` contract's.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def _contracts() -> list[dict[str, Any]]:
    with (ROOT / "pyproject.toml").open("rb") as file:
        contracts: list[dict[str, Any]] = tomllib.load(file)["tool"]["importlinter"]["contracts"]
    return contracts


def _contract(*, key: str | None = None, name: str | None = None) -> dict[str, Any]:
    """A contract by its id or its name."""
    found = [c for c in _contracts() if (key is not None and c.get("id") == key) or c["name"] == name]
    assert len(found) == 1, f"pyproject.toml: no single contract {key or name!r}"
    return found[0]


def _layers(specs: list[str]) -> list[list[str]]:
    """`"review | ci | setup"` -> `["review", "ci", "setup"]`, one list per layer, top first."""
    return [[name.strip() for name in spec.split("|")] for spec in specs]


def page_layers(text: str) -> list[list[str]]:
    """The numbered list of the page's "The packages, top to bottom" section: `1. `cli`: ...`."""
    section = re.search(r"^## The packages, top to bottom\n(.*?)(?=^## )", text, re.S | re.M)
    assert section is not None, "docs/architecture.md has no '## The packages, top to bottom' section"
    items = re.findall(r"^(\d+)\. `([a-z_ |]+)`:", section[1], re.M)
    assert [int(number) for number, _ in items] == list(range(1, len(items) + 1)), "the list is numbered 1, 2, ..."
    return _layers([spec for _, spec in items])


def test_the_page_lists_the_package_contracts_layers_in_order() -> None:
    contract = _contract(key="packages")
    assert contract["containers"] == ["ratchet"]
    assert page_layers(PAGE.read_text(encoding="utf-8")) == _layers(contract["layers"])


def test_every_package_of_ratchet_is_in_the_order() -> None:
    packages = {path.parent.name for path in (ROOT / "ratchet").glob("*/__init__.py")}
    listed = {name for layer in page_layers(PAGE.read_text(encoding="utf-8")) for name in layer}
    assert packages - listed == set(), "packages docs/architecture.md does not place"
    assert listed - packages == set(), "docs/architecture.md places packages that do not exist"


def _stages() -> list[str]:
    """The gate's stage modules in contract order, siblings on one layer (`a | b`) in their written order."""
    layers = _contract(name="gate stages import only earlier stages")["layers"]
    return [name.strip() for layer in layers for name in layer.split("|")]


def test_the_page_quotes_the_gate_stage_contract() -> None:
    stages = _stages()
    text = PAGE.read_text(encoding="utf-8")
    quoted = re.search(
        r'contract "gate stages import only earlier stages" in pyproject\.toml, top to bottom: (.*?)\)', text, re.S
    )
    assert quoted is not None, "docs/architecture.md no longer quotes the gate stage contract"
    assert re.findall(r"`(\w+)`", quoted[1]) == stages


def test_every_stage_the_contract_orders_is_on_the_pairs_path() -> None:
    text = PAGE.read_text(encoding="utf-8")
    path = text.split("## A pair's path through the gate", 1)[1]
    stages = _stages()
    missing = [stage for stage in stages if f"`{stage}.py`" not in path]
    assert missing == [], f"gate modules docs/architecture.md does not place on a pair's path: {missing}"


def test_a_page_that_drops_a_package_fails() -> None:
    text = PAGE.read_text(encoding="utf-8").replace("`goldens | repo`", "`goldens`")
    assert page_layers(text) != _layers(_contract(key="packages")["layers"])
