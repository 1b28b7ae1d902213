"""What `ratchet watch` replays: goldens with a fresh noise record and an unchanged skill; the rest are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import load_project
from ratchet.core.errors import InputError
from ratchet.core.ids import derived_seed
from ratchet.goldens.trace import read_trace
from ratchet.watch.run import WatchOptions, watch_project
from tests.watch.conftest import FX, RECORDED, TRIAGE


def _not_watched(report_repo: Path, **options: object) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    report = watch_project(load_project(report_repo), WatchOptions(repeats=1, **options))  # type: ignore[arg-type]
    named: dict[str, list[str]] = {}
    for item in report.not_watched:
        named.setdefault(item.why, []).append(item.task_id)
    return named, {skill.skill: skill.goldens for skill in report.skills}


def test_stale_and_missing_records_and_changed_skills_are_named_not_used(watched_repo: Path) -> None:
    golden = watched_repo / "goldens" / "github-triage" / "github-triage-01.json"
    trace = read_trace(golden)
    # Re-blessed after its record was measured (any byte of it): the record is pinned to the old golden.
    golden.write_text(trace.model_copy(update={"prompt": trace.prompt + " "}).to_json(), encoding="utf-8")
    skill = watched_repo / "skills" / "fx-expense-converter" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")

    named, watched = _not_watched(watched_repo)

    assert named["stale noise record"] == ["github-triage-01"]
    assert named["skill changed"] == list(FX)
    assert len(named["no noise record"]) == 23 - len(RECORDED)
    assert watched == {"_none": ["canary-01"], "github-triage": sorted(TRIAGE[1:], key=_order)}


def test_per_skill_takes_the_first_k_in_seeded_order_and_skills_filter(watched_repo: Path) -> None:
    named, watched = _not_watched(watched_repo, per_skill=2, skills=("github-triage",))
    assert watched == {"github-triage": sorted(TRIAGE, key=_order)[:2]}
    assert set(named) == {"no noise record"} and all(t.startswith("github-triage-") for t in named["no noise record"])


def test_an_unknown_skill_or_nothing_to_watch_is_bad_input(watched_repo: Path) -> None:
    with pytest.raises(InputError, match="no golden of skill 'nope' to watch"):
        watch_project(load_project(watched_repo), WatchOptions(skills=("nope",)))
    for path in (watched_repo / "goldens").glob("*/*.noise.json"):
        path.unlink()
    with pytest.raises(InputError, match=r"^nothing to watch: none of 23 golden\(s\) has a fresh noise record"):
        watch_project(load_project(watched_repo), WatchOptions())


def _order(task_id: str) -> tuple[int, str]:
    return derived_seed("watch", task_id), task_id
