"""check does not export the base's world and workspaces (every replay runs over the head's), and still
exports them when the gate keeps its drift fixtures or judge prompt there (issue 16: fewer files written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

import ratchet.gate.check as check_module
from ratchet.config.gate import resolve_gate_config
from ratchet.config.project import Paths
from ratchet.core.clock import frozen_clock
from ratchet.data import packaged_config, packaged_prompt
from ratchet.gate.base_state import unread_at_base
from ratchet.gate.check import check_edit
from ratchet.skills.sets import load_skills
from tests.helpers.gitrepo import commit, git

SKILL = "skills/fx-expense-converter/SKILL.md"


def _edit_skill(repo: Path, message: str, extra: dict[str, str | None] | None = None) -> str:
    text = (repo / SKILL).read_text(encoding="utf-8")
    # A sentence the simulator does not read: a blank line alone is cosmetic, and replays nothing (ratchet.gate.static).
    return commit(repo, {SKILL: text + "\nKeep the report tidy.\n", **(extra or {})}, message)


def _base_folders(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The top-level names in each tree check loads skills from (base first), seen as it loads them."""
    seen: list[list[str]] = []

    def spy(skills_dir: Path) -> object:
        seen.append(sorted(p.name for p in skills_dir.parent.iterdir()))
        return load_skills(skills_dir)

    monkeypatch.setattr(check_module, "load_skills", spy)
    return seen


def test_the_base_export_leaves_out_world_and_workspaces_and_the_verdict_is_the_same(
    demo_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = _base_folders(monkeypatch)
    blessed = git(demo_repo, "rev-parse", "HEAD")
    skipped = check_edit(
        demo_repo, base=blessed, head=_edit_skill(demo_repo, "a blank line"), config="cascade", clock=frozen_clock
    )
    # The project's own configs/cascade.yaml (the packaged one's copy) has the whole base exported, as before.
    git(demo_repo, "checkout", "-q", "-b", "own-config", blessed)
    commit(demo_repo, {"configs/cascade.yaml": packaged_config("cascade").read_text(encoding="utf-8")}, "own config")
    base = git(demo_repo, "rev-parse", "HEAD")
    whole = check_edit(
        demo_repo, base=base, head=_edit_skill(demo_repo, "a blank line"), config="cascade", clock=frozen_clock
    )
    (skipped_base, skipped_head), (whole_base, whole_head) = seen[:2], seen[2:]
    assert "world" not in skipped_base and "workspaces" not in skipped_base and "skills" in skipped_base
    assert {"world", "workspaces"} <= set(whole_base) & set(skipped_head) & set(whole_head)
    assert (skipped.decision, skipped.summary) == (whole.decision, whole.summary)
    # The second check's replays are the first's, from the cache: the same pairs, at no cost.
    assert [p.model_dump(exclude={"cost_usd"}) for p in skipped.pairs] == [
        p.model_dump(exclude={"cost_usd"}) for p in whole.pairs
    ]


def _moved_rates(repo: Path) -> dict[str, float]:
    moved: dict[str, float] = {}
    for path in sorted((repo / "goldens" / "fx-expense-converter").glob("*.json")):
        for read in json.loads(path.read_text(encoding="utf-8"))["volatile_reads"]:
            moved[read["key"]] = round(float(read["value"]) * 1.02, 6)
    return moved


def test_drift_fixtures_kept_inside_the_world_folder_are_still_read(demo_repo: Path) -> None:
    moved = _moved_rates(demo_repo)
    fixtures = yaml.safe_dump({"schema_version": 1, "facts": moved})
    base = commit(demo_repo, {"world/fixtures/fx.yaml": fixtures}, "search fixtures inside the world folder")
    rates: dict[str, dict[str, float]] = {}
    for key, value in moved.items():
        _, _, date, currency = key.split(".")
        rates.setdefault(date, {})[currency] = value
    head = _edit_skill(
        demo_repo,
        "a blank line while the rates moved",
        {"world/zz-moved.yaml": yaml.safe_dump({"fx": {"rates": rates}})},
    )
    cascade = resolve_gate_config("cascade")
    config = cascade.model_copy(update={"drift": cascade.drift.model_copy(update={"fixtures": "world/fixtures"})})
    verdict = check_edit(demo_repo, base=base, head=head, config=config)
    assert [p for p in verdict.pairs if p.outcome == "drift"], verdict.summary
    assert verdict.decision == "PASS", verdict.summary


def test_a_project_config_whose_judge_prompt_is_in_the_world_folder_still_finds_it(demo_repo: Path) -> None:
    mine = packaged_config("cascade").read_text(encoding="utf-8").replace("name: cascade", "name: mine")
    judge = packaged_prompt("judge.md").read_text(encoding="utf-8")
    beside = commit(
        demo_repo,
        {"configs/mine.yaml": mine + "judge_prompt: ../prompts/judge.md\n", "prompts/judge.md": judge},
        "own judge beside the configs",
    )
    inside = commit(
        demo_repo,
        {
            "configs/mine.yaml": mine + "judge_prompt: ../world/prompts/judge.md\n",
            "world/prompts/judge.md": judge,
            "prompts/judge.md": None,
        },
        "own judge in the world",
    )
    git(demo_repo, "checkout", "-q", "-b", "edit-beside-head", beside)
    head_beside = _edit_skill(demo_repo, "a blank line")
    git(demo_repo, "checkout", "-q", "main")
    head_inside = _edit_skill(demo_repo, "a blank line")
    first = check_edit(demo_repo, base=beside, head=head_beside, config="mine")
    second = check_edit(demo_repo, base=inside, head=head_inside, config="mine")
    assert second.decision == first.decision
    assert [(p.task_id, p.outcome, p.reason) for p in second.pairs] == [
        (p.task_id, p.outcome, p.reason) for p in first.pairs
    ]


@pytest.mark.parametrize(
    ("paths", "unread"),
    [
        (Paths(), ("world", "workspaces")),
        (Paths(world="./world/", workspaces="world"), ("world",)),
        (Paths(world="."), ("workspaces",)),
        (Paths(world="data", skills="data/skills"), ("workspaces",)),  # the world holds the skills
        (Paths(workspaces="skills/ws"), ("world",)),  # the workspaces sit inside the skills
        (Paths(world="configs/world"), ("workspaces",)),  # inside configs/, which the gate is read from
        (Paths(world="w", tasks="w/tasks.yaml", goldens="w2"), ("workspaces",)),
    ],
)
def test_only_folders_no_base_reader_opens_are_left_out(paths: Paths, unread: tuple[str, ...]) -> None:
    assert unread_at_base(paths) == unread
