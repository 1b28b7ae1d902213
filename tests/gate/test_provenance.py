"""Provenance: a golden compared with its replay's upstream, agent model, harness, tool protocol and version.

Each difference is kept on its pair and named once per kind on the verdict's first lines (ratchet.gate.provenance);
a field a golden did not record (older goldens) is no difference; a Ratchet upgrade alone is a note.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ratchet.config.project import Project, RatchetConfig, TierConfig
from ratchet.core.labels import __version__
from ratchet.gate.decide import with_unchecked
from ratchet.gate.models import PairOutcome, ProvenanceDifference, Unseen, Verdict
from ratchet.gate.provenance import provenance_differences, provenance_notes, unseen_with_provenance
from ratchet.gate.replay import replay_task
from ratchet.goldens.tasks import Task
from ratchet.goldens.trace import HarnessRef, Trace
from ratchet.sim.models import SIMULATOR

RECORD = "re-record them: ratchet record a b && ratchet bless a b"


def _trace(**fields: object) -> Trace:
    base: dict[str, object] = {
        "task_id": "a",
        "prompt": "p",
        "seed": 1,
        "frozen_time": "2026-10-14T16:00:00Z",
        "models": {"agent": "openai/model-a"},
        "upstream": "live",
        "simulated": False,
        "tool_protocol": "native",
        "ratchet_version": __version__,
    }
    return Trace.model_validate({**base, **fields})


def _pair(task_id: str, *differences: ProvenanceDifference, skill: str | None = "s") -> PairOutcome:
    return PairOutcome(
        task_id=task_id,
        golden_skill=skill,
        replay_skill=skill,
        selected_because="routed",
        outcome="same",
        decided_by="level0",
        reason="identical",
        provenance=list(differences),
    )


def _d(kind: str, golden: str, replay: str) -> ProvenanceDifference:
    return ProvenanceDifference.model_validate({"kind": kind, "golden": golden, "replay": replay})


# -- one golden against its replay ------------------------------------------------------------------------


def test_a_replay_like_its_golden_has_no_difference() -> None:
    assert provenance_differences(_trace(), _trace()) == []


def test_a_field_the_golden_did_not_record_is_no_difference() -> None:
    older = _trace(tool_protocol="", ratchet_version="", models={})
    newer = _trace(tool_protocol="text", ratchet_version="9.9.9", models={"agent": "openai/model-b"})
    assert provenance_differences(older, newer) == []
    # A harness recorded without its version (the `command` harness has none) is compared by name only.
    assert (
        provenance_differences(
            _trace(harness=HarnessRef(name="claude-code")),
            _trace(harness=HarnessRef(name="claude-code", version="2.0.1")),
        )
        == []
    )


def test_each_kind_of_difference() -> None:
    golden = _trace(harness=HarnessRef(name="claude-code", version="2.0.1"))
    replay = _trace(
        models={"agent": "openai/model-b"},
        harness=HarnessRef(name="claude-code", version="2.0.5"),
        tool_protocol="text",
        ratchet_version="9.9.9",
    )
    assert provenance_differences(golden, replay) == [
        _d("agent_model", "openai/model-a", "openai/model-b"),
        _d("harness", "claude-code 2.0.1", "claude-code 2.0.5"),
        _d("tool_protocol", "native", "text"),
        _d("ratchet_version", __version__, "9.9.9"),
    ]
    # The minimal runner records no harness: a golden recorded through one and replayed without is a difference.
    assert provenance_differences(golden, _trace()) == [_d("harness", "claude-code 2.0.1", "minimal")]


def test_another_upstream_is_one_difference_not_also_a_model() -> None:
    # The simulator's model id stands in for no model: "sim/agent-1 vs openai/model-a" would say the same twice.
    golden = _trace(upstream="sim", simulated=True, models={"agent": "sim/agent-1"})
    assert provenance_differences(golden, _trace()) == [_d("upstream", "sim", "live")]


# -- named on the verdict, once per kind ----------------------------------------------------------------------


def test_one_line_per_kind_naming_the_goldens_with_the_command_to_re_record() -> None:
    upstream = _d("upstream", "sim", "live")
    notes = provenance_notes([_pair("a", upstream), _pair("b", upstream, skill="t"), _pair("c")])
    assert notes == [
        Unseen(
            kind="provenance",
            skill="s, t",
            level="warn",
            detail=(
                "2 golden(s) were recorded on the simulator but replayed live (a, b): "
                f"the comparison is not like for like; {RECORD}"
            ),
        )
    ]


def test_fifty_goldens_that_share_a_difference_are_one_line() -> None:
    model = _d("agent_model", "openai/model-a", "openai/model-b")
    notes = provenance_notes([_pair(f"t{i:02}", model) for i in range(50)])
    assert [n.detail for n in notes] == [
        "50 golden(s) were recorded with agent model openai/model-a but replayed with openai/model-b "
        "(t00, t01, t02, t03, t04, t05, t06, t07 and 42 more): the comparison is not like for like; "
        "re-record them: ratchet record && ratchet bless (every task)"
    ]


@pytest.mark.parametrize(
    ("difference", "said"),
    [
        (("harness", "claude-code 2.0.1", "minimal"), "through claude-code 2.0.1 but replayed through minimal"),
        (("tool_protocol", "native", "text"), "with tool protocol native but replayed with text"),
        (("upstream", "live", "sim"), "live but replayed on the simulator"),
    ],
)
def test_what_each_kind_says(difference: tuple[str, str, str], said: str) -> None:
    (note,) = provenance_notes([_pair("a", _d(*difference)), _pair("b", _d(*difference))])
    assert note.detail == f"2 golden(s) were recorded {said} (a, b): the comparison is not like for like; {RECORD}"
    assert note.level == "warn"


def test_a_ratchet_upgrade_is_a_note_not_a_warning() -> None:
    upgrade = _d("ratchet_version", "0.0.9", "0.1.0")
    (note,) = provenance_notes([_pair("a", upgrade), _pair("b", upgrade)])
    assert (note.level, note.detail) == (
        "note",
        "2 golden(s) were recorded with Ratchet 0.0.9 but replayed with 0.1.0 (a, b): a note, not a warning "
        "(an upgrade alone is no reason to doubt a golden); if a pair differs, re-recording tells Ratchet's "
        f"change from the edit's: {RECORD.removeprefix('re-record them: ')}",
    )
    verdict = Verdict(base="x", head="y", skills_changed=["s"], decision="PASS", summary="1 affected golden(s)")
    assert with_unchecked(verdict, unseen=[note]).decision == "PASS"


def test_provenance_warnings_lead_and_notes_follow_the_warnings() -> None:
    other_warn = Unseen(kind="unrouted", skill="s", level="warn", detail="unrouted")
    other_note = Unseen(kind="prose", skill="s", level="note", detail="prose")
    pairs = [_pair("a", _d("ratchet_version", "0.0.9", "0.1.0"), _d("tool_protocol", "native", "text"))]
    ordered = unseen_with_provenance(pairs, [other_warn, other_note])
    assert [(n.kind, n.level) for n in ordered] == [
        ("provenance", "warn"),
        ("unrouted", "warn"),
        ("provenance", "note"),
        ("prose", "note"),
    ]
    assert unseen_with_provenance([_pair("a")], [other_warn]) == [other_warn]


# -- filled when a trace is replayed -----------------------------------------------------------------------------


def test_a_replay_is_stamped_with_the_agent_tiers_protocol_and_this_version(tmp_path: Path) -> None:
    (tmp_path / "world").mkdir()
    config = RatchetConfig(tiers={"agent": TierConfig(model="openai/m", tool_protocol="text")})
    project = Project(root=tmp_path, config=config, home=tmp_path / "home")
    task = Task(id="a", prompt="Write a haiku about autumn leaves.")
    replay = replay_task(task, _trace(), {}, SIMULATOR.model("agent", noise=0.0), project=project, tree=tmp_path)
    assert (replay.tool_protocol, replay.ratchet_version) == ("text", __version__)
