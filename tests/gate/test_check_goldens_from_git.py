"""check reads the base's goldens from git without writing them out, and still exports them when the gate
keeps something there (issue 16: at 10,000 goldens, writing them was most of a check)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ratchet.config.gate import resolve_gate_config
from ratchet.core.errors import GoldenError
from ratchet.gate.check import check_edit
from tests.helpers.gitrepo import commit

# A sentence the simulator does not read: a blank line alone is cosmetic, and replays nothing (ratchet.gate.static).
TIDY = "\nKeep the report tidy.\n"


def _moved_rates(repo: Path) -> dict[str, float]:
    moved: dict[str, float] = {}
    for path in sorted((repo / "goldens" / "fx-expense-converter").glob("*.json")):
        for read in json.loads(path.read_text(encoding="utf-8"))["volatile_reads"]:
            moved[read["key"]] = round(float(read["value"]) * 1.02, 6)
    return moved


def _overlay(moved: dict[str, float]) -> str:
    rates: dict[str, dict[str, float]] = {}
    for key, value in moved.items():
        _, _, date, currency = key.split(".")
        rates.setdefault(date, {})[currency] = value
    return yaml.safe_dump({"fx": {"rates": rates}})


def test_drift_fixtures_kept_inside_the_goldens_folder_are_still_read(demo_repo: Path) -> None:
    moved = _moved_rates(demo_repo)
    fixtures = yaml.safe_dump({"schema_version": 1, "facts": moved})
    base = commit(demo_repo, {"goldens/fixtures/fx.yaml": fixtures}, "search fixtures inside the goldens folder")
    skill = demo_repo / "skills" / "fx-expense-converter" / "SKILL.md"
    head = commit(
        demo_repo,
        {
            "world/zz-moved.yaml": _overlay(moved),
            "skills/fx-expense-converter/SKILL.md": skill.read_text(encoding="utf-8") + TIDY,
        },
        "a sentence in the skill while the rates moved",
    )
    cascade = resolve_gate_config("cascade")
    config = cascade.model_copy(update={"drift": cascade.drift.model_copy(update={"fixtures": "goldens/fixtures"})})
    verdict = check_edit(demo_repo, base=base, head=head, config=config)
    drifted = [p for p in verdict.pairs if p.outcome == "drift"]
    assert drifted, verdict.summary
    assert verdict.decision == "PASS", verdict.summary


def test_a_bad_golden_read_from_git_is_named_by_its_repo_path_at_the_base(demo_repo: Path) -> None:
    golden = next(iter(sorted((demo_repo / "goldens" / "fx-expense-converter").glob("*.json"))))
    rel = golden.relative_to(demo_repo).as_posix()
    base = commit(
        demo_repo,
        {rel: golden.read_text(encoding="utf-8").replace('"schema_version": 1', '"schema_version": 9')},
        "a golden from the future",
    )
    skill = demo_repo / "skills" / "fx-expense-converter" / "SKILL.md"
    head = commit(demo_repo, {"skills/fx-expense-converter/SKILL.md": skill.read_text(encoding="utf-8") + TIDY}, "edit")
    with pytest.raises(GoldenError) as info:
        check_edit(demo_repo, base=base, head=head, config=resolve_gate_config("level0_only"))
    assert info.value.one_line() == f"{rel}@{base[:10]}: unsupported schema_version 9 (this Ratchet reads 1)"
