"""A skill renamed to a look-alike (fullwidth f, U+FF46; NFKC-equal) cannot slip past the gate.

Issue 13, item 2: the rename passed, and every later edit of the renamed skill passed with "no
golden is affected", because the changed folder's name was compared to the goldens' skill as a
raw string. Skill identity is the NFKC form (ratchet/skills/names.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ratchet.cli import app
from ratchet.config.gate import resolve_gate_config
from ratchet.core.errors import SkillError
from ratchet.gate.check import check_edit
from ratchet.gate.level0 import level0_findings
from ratchet.gate.select import affected_goldens
from ratchet.goldens.tasks import load_tasks
from ratchet.goldens.trace import SkillRef, Trace, load_goldens
from ratchet.setup.demo import EDITS
from ratchet.skills.sets import load_skills
from tests.helpers.gitrepo import git

SKILL = "fx-expense-converter"
LOOKALIKE = "\uff46x-expense-converter"  # fullwidth small f: NFKC folds it to "f"
SIDE_EFFECT = next(edit for edit in EDITS if edit.branch == "edit/new-side-effect")


def _rename_to_lookalike(repo: Path) -> str:
    git(repo, "checkout", "-q", "-b", "edit/lookalike", "main")
    git(repo, "mv", f"skills/{SKILL}", f"skills/{LOOKALIKE}")
    path = repo / "skills" / LOOKALIKE / "SKILL.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace(f"name: {SKILL}", f"name: {LOOKALIKE}", 1), encoding="utf-8"
    )
    git(repo, "commit", "-q", "-a", "--no-verify", "-m", "rename fx-expense-converter to a look-alike")
    return git(repo, "rev-parse", "HEAD")


def _add_side_effect(repo: Path) -> str:
    path = repo / "skills" / LOOKALIKE / "SKILL.md"
    path.write_text(SIDE_EFFECT.apply(path.read_text(encoding="utf-8")), encoding="utf-8")
    git(repo, "commit", "-q", "-a", "--no-verify", "-m", SIDE_EFFECT.message)
    return git(repo, "rev-parse", "HEAD")


REFUSED = (
    f":2: 'name' {LOOKALIKE!r} is a look-alike spelling of 'fx-expense-converter' "
    "(NFKC folds its compatibility characters): write it as 'fx-expense-converter'"
)


def test_the_lookalike_rename_is_refused_at_the_door(demo_repo: Path) -> None:
    main = git(demo_repo, "rev-parse", "main")
    renamed = _rename_to_lookalike(demo_repo)
    with pytest.raises(SkillError) as caught:
        check_edit(demo_repo, base=main, head=renamed, config=resolve_gate_config("cascade"))
    assert caught.value.one_line() == f"skills/{LOOKALIKE}/SKILL.md@{renamed[:10]}{REFUSED}"
    result = CliRunner().invoke(app, ["check", "--repo", str(demo_repo), "--base", main, "--head", renamed])
    assert result.exit_code == 2
    assert REFUSED in result.stderr


def test_an_edit_riding_on_the_lookalike_rename_never_passes(demo_repo: Path) -> None:
    main = git(demo_repo, "rev-parse", "main")
    renamed = _rename_to_lookalike(demo_repo)
    edited = _add_side_effect(demo_repo)
    for base in (main, renamed):
        with pytest.raises(SkillError, match="is a look-alike spelling of 'fx-expense-converter'"):
            check_edit(demo_repo, base=base, head=edited, config=resolve_gate_config("cascade"))


@pytest.mark.parametrize("folder", [LOOKALIKE, SKILL])
def test_a_changed_folder_selects_the_goldens_of_the_skill_it_names(demo_repo: Path, folder: str) -> None:
    """However the changed folder is spelled, the goldens of its skill are replayed."""
    tasks = load_tasks(demo_repo / "tasks.yaml")
    goldens = load_goldens(demo_repo / "goldens")
    selected = affected_goldens(tasks, goldens, [folder], load_skills(demo_repo / "skills"))
    routed = sorted(g.task_id for g in goldens.values() if g.fired_skill == SKILL)
    assert routed, "the demo has goldens for the skill"
    assert sorted(item.task.id for item in selected) == routed
    assert {item.because for item in selected} == {"routed"}


def test_a_golden_recorded_under_another_spelling_routes_to_the_same_skill(demo_repo: Path) -> None:
    """A golden whose skill is spelled differently (NFD, or recorded before names were normalized)
    is the same skill's golden: selected as routed, not as a trigger-neighbourhood change."""
    tasks = load_tasks(demo_repo / "tasks.yaml")
    goldens = load_goldens(demo_repo / "goldens")
    respelled = {
        task_id: _fired(golden, LOOKALIKE) if golden.fired_skill == SKILL else golden
        for task_id, golden in goldens.items()
    }
    selected = affected_goldens(tasks, respelled, [SKILL], load_skills(demo_repo / "skills"))
    assert {item.because for item in selected} == {"routed"}
    assert len(selected) == sum(1 for g in goldens.values() if g.fired_skill == SKILL)
    untouched = affected_goldens(tasks, respelled, ["github-triage"], load_skills(demo_repo / "skills"))
    assert all(item.golden.fired_skill != LOOKALIKE for item in untouched)


def _fired(golden: Trace, name: str) -> Trace:
    ref = golden.skills_fired[0]
    return golden.model_copy(
        update={"skills_fired": [SkillRef(name=name, content_hash=ref.content_hash, substance_hash=ref.substance_hash)]}
    )


def test_routing_to_another_spelling_of_the_same_skill_is_not_a_routing_change(demo_repo: Path) -> None:
    golden = next(g for g in load_goldens(demo_repo / "goldens").values() if g.fired_skill == SKILL)
    assert level0_findings(golden, _fired(golden, LOOKALIKE)) == []
    assert [f.kind for f in level0_findings(golden, _fired(golden, "github-triage"))] == ["routing_changed"]
