"""`ratchet watch` flags a model whose behaviour moved and stays quiet on one that varies only within its noise."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from ratchet.config.project import load_project
from ratchet.watch.models import WatchReport
from ratchet.watch.render import render_report
from ratchet.watch.run import WatchOptions, watch_project
from tests.watch.conftest import FX, SIM_NOISE, TRIAGE
from tests.watch.models import NEW_MODEL, NewModel

TRIAGE_SKILL = "github-triage"
REPEATS = 4


def _watch(repo: Path, **options: object) -> WatchReport:
    return watch_project(load_project(repo), WatchOptions(repeats=REPEATS, **options))  # type: ignore[arg-type]


def test_the_configured_model_varying_within_its_noise_stays_quiet(watched_repo: Path) -> None:
    report = _watch(watched_repo)
    assert report.moved == []
    assert [(s.skill, s.goldens) for s in report.skills] == [
        ("_none", ["canary-01"]),
        ("fx-expense-converter", sorted(FX, key=_order)),
        (TRIAGE_SKILL, sorted(TRIAGE, key=_order)),
    ]
    for skill in report.skills:
        assert skill.replays == len(skill.goldens) * REPEATS and skill.world == skill.errors == 0
        assert skill.p_value is not None and skill.adjusted_p is not None and skill.adjusted_p > report.alpha
    # It does vary: the simulator at sim_noise 0.3, like the records it is compared with.
    assert sum(s.differed for s in report.skills) > 0
    assert report.models.answered == report.models.noise == [f"sim/agent-1+noise{SIM_NOISE:g}"]
    assert report.models.changed == []
    assert report.simulated


def test_a_new_model_id_alone_is_a_banner_not_a_move(watched_repo: Path) -> None:
    report = _watch(watched_repo, upstream_models={"agent": NewModel(SIM_NOISE)})
    assert report.moved == []
    assert report.models.answered == [NEW_MODEL]
    assert report.models.changed == [NEW_MODEL]
    console = Console(width=250, record=True, highlight=False, soft_wrap=False)
    render_report(report, console)
    assert console.export_text().splitlines()[1] == (
        f"model changed: the agent answered as {NEW_MODEL}; the goldens were recorded with sim/agent-1, "
        f"their noise measured with sim/agent-1+noise{SIM_NOISE:g}"
    )


def test_a_model_whose_behaviour_moved_for_one_skill_is_flagged_for_that_skill_only(watched_repo: Path) -> None:
    report = _watch(watched_repo, upstream_models={"agent": NewModel(SIM_NOISE, moved=TRIAGE_SKILL)})
    assert report.moved == [TRIAGE_SKILL]
    triage = next(s for s in report.skills if s.skill == TRIAGE_SKILL)
    assert (triage.differed, triage.replays) == (12, 12)
    assert triage.noise_repeats == 3 * 8 and triage.noise_differed < triage.noise_repeats
    assert triage.adjusted_p is not None and triage.adjusted_p <= 0.05
    others = [s for s in report.skills if s.skill != TRIAGE_SKILL]
    assert others and not any(s.moved for s in others)
    assert report.models.changed == [NEW_MODEL]


def test_a_replay_that_failed_is_named_and_not_counted(watched_repo: Path) -> None:
    report = _watch(watched_repo, upstream_models={"agent": NewModel(SIM_NOISE, fails=TRIAGE_SKILL)})
    triage = next(s for s in report.skills if s.skill == TRIAGE_SKILL)
    assert (triage.replays, triage.errors, triage.p_value, triage.moved) == (0, 12, None, False)
    assert len(report.failed) == 12
    assert "500 internal error" in report.failed[0].detail
    assert report.moved == []


def test_watch_replays_are_never_answered_from_the_cache(watched_repo: Path) -> None:
    first = _watch(watched_repo)
    again = _watch(watched_repo)
    assert again.model_dump() == first.model_dump()  # seeds from ids: the same replays, the same report
    assert first.cost_usd > 0 and again.cost_usd == first.cost_usd  # both paid: the second was not a cache hit


def _order(task_id: str) -> tuple[int, str]:
    from ratchet.core.ids import derived_seed

    return derived_seed("watch", task_id), task_id
