from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ratchet.config.gate import resolve_gate_config
from ratchet.core.errors import ConfigError, ModelCallError
from ratchet.core.fence import fence_token, read_fenced
from ratchet.gate.context import CheckContext
from ratchet.gate.drift import FixtureSearch, TavilySearch, drift_check, moved_facts
from ratchet.gate.models import PairOutcome, Selected
from ratchet.gate.pair import gate_pair
from ratchet.goldens.trace import Trace
from tests.gate.judge_fakes import ScriptedJudge, answer, make_task, make_trace

KEY = "fx.rates.2026-10-14.EUR"
CALLS = [("fx_rate", {"date": "2026-10-14", "currency": "EUR"}, "read")]
GOLDEN = make_trace("Converted: 108.80 USD (rate 1.0880)", CALLS, volatile={KEY: 1.088})
MOVED = make_trace("Converted: 109.12 USD (rate 1.0912)", CALLS, volatile={KEY: 1.0912})
FIXTURES = FixtureSearch(Path(__file__).resolve().parents[2] / "bench" / "fixtures")


class BaseReplay:
    """The unchanged skill's replay on the current world, counting how often it was asked for."""

    def __init__(self, trace: Trace | Exception) -> None:
        self.trace = trace
        self.calls = 0

    def __call__(self) -> Trace:
        self.calls += 1
        if isinstance(self.trace, Exception):
            raise self.trace
        return self.trace


class Source:
    """The replay under the edit, and the unchanged skill's replay from a BaseReplay."""

    def __init__(self, replay: Trace, base: BaseReplay) -> None:
        self.trace = replay
        self.base = base

    def replay(self, item: Selected) -> Trace:
        return self.trace

    def replay_base(self, item: Selected) -> Trace:
        return self.base()


def gate(
    config: str, replay: Trace, base: BaseReplay, *, search: FixtureSearch = FIXTURES, **answers: list[str | Exception]
) -> tuple[PairOutcome, dict[str, ScriptedJudge]]:
    judges = {tier: ScriptedJudge(f"fake/{tier}", answers.get(tier, [])) for tier in ("nano", "super", "ultra")}
    item = Selected(task=make_task(), golden=GOLDEN, because="routed")
    run = CheckContext(config=resolve_gate_config(config), judges=judges, search=search)
    result = gate_pair(item, Source(replay, base), run, pair_id="d1/t1")
    return result, judges


def test_moved_facts() -> None:
    [fact] = moved_facts(GOLDEN, MOVED)
    assert (fact.key, fact.golden_value, fact.replay_value) == (KEY, 1.088, 1.0912)
    assert moved_facts(GOLDEN, GOLDEN) == []


def test_a_moved_fx_rate_is_drift_with_the_cascade() -> None:
    base = BaseReplay(make_trace(MOVED.final_output, CALLS, volatile={KEY: 1.0912}, cost=0.003))
    result, judges = gate("cascade", MOVED, base)
    assert (result.outcome, result.decided_by) == ("drift", "drift")
    assert result.hint is not None and "re-bless" in result.hint
    assert (
        result.drift is not None
        and result.drift.moved[0].confirmed
        and result.drift.moved[0].source.startswith("fixture")
    )
    assert base.calls == 1 and not any(j.requests for j in judges.values())
    assert result.cost_usd == pytest.approx(0.003)


def test_the_same_edit_is_judged_with_drift_off() -> None:
    base = BaseReplay(MOVED)
    result, _ = gate("drift_off", MOVED, base, nano=[answer("regression", 0.9)], super=[answer("regression", 0.9)] * 2)
    assert (result.outcome, result.decided_by) == ("regression", "super")
    assert base.calls == 0 and result.drift is None


def test_an_unconfirmed_move_is_not_drift(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text(f"schema_version: 1\nfacts:\n  {KEY}: 1.5\n", encoding="utf-8")
    result, _ = gate("nano_only", MOVED, BaseReplay(MOVED), search=FixtureSearch(tmp_path), nano=[answer("pass", 0.9)])
    assert result.outcome == "pass" and result.drift is not None and not result.drift.is_drift
    assert "does not confirm" in result.drift.note


def test_a_difference_the_move_does_not_explain_is_judged_against_the_base_replay() -> None:
    base_trace = MOVED
    edited = make_trace("Converted: 109.12 USD", CALLS, volatile={KEY: 1.0912})  # dropped the rate line
    result, judges = gate(
        "cascade",
        edited,
        BaseReplay(base_trace),
        nano=[answer("regression", 0.9)],
        super=[answer("regression", 0.92)] * 2,
    )  # super judges in both orders
    assert (result.outcome, result.decided_by) == ("regression", "super")
    assert result.reason.startswith("judged against the unchanged skill on the current world")
    request = judges["nano"].requests[0]
    nonce = fence_token(request.messages[0].content or "")
    assert nonce is not None
    sections = read_fenced(request.messages[1].content or "", nonce)
    assert sections["golden_output"] == base_trace.final_output and sections["replay_output"] == edited.final_output


def test_a_new_side_effect_the_edit_added_is_a_hard_fail_even_when_a_fact_moved() -> None:
    edited = make_trace(
        MOVED.final_output, [*CALLS, ("send_email", {"to": "a@example.com"}, "send")], volatile={KEY: 1.0912}
    )
    base = BaseReplay(MOVED)  # the unchanged skill on the moved world sends nothing
    result, _ = gate("cascade", edited, base)
    assert (result.outcome, result.decided_by, base.calls) == ("regression", "level0", 1)
    assert "hard fail: new send call send_email" in result.reason


def test_a_new_side_effect_the_moved_world_causes_is_drift_not_a_block() -> None:
    edited = make_trace(
        MOVED.final_output, [*CALLS, ("send_email", {"to": "a@example.com"}, "send")], volatile={KEY: 1.0912}
    )
    base = BaseReplay(edited)  # the unchanged skill makes the same new call on the moved world
    result, _ = gate("cascade", edited, base)
    assert (result.outcome, result.decided_by, base.calls) == ("drift", "drift", 1)
    assert result.hint is not None


def test_no_moved_fact_means_no_base_replay() -> None:
    edited = make_trace("Converted: 108.80 USD", CALLS, volatile={KEY: 1.088})
    base = BaseReplay(MOVED)
    result, _ = gate("cascade", edited, base, nano=[answer("pass", 0.95)])
    assert (result.outcome, base.calls, result.drift) == ("pass", 0, None)


def test_a_failing_base_replay_falls_back_to_judging_the_golden() -> None:
    result, _ = gate("nano_only", MOVED, BaseReplay(ModelCallError("agent down")), nano=[answer("regression", 0.9)])
    assert result.outcome == "regression" and result.drift is not None
    assert "could not replay the base skill" in result.drift.note


def test_drift_check_evidence_when_base_matches_but_is_error() -> None:
    check = drift_check(GOLDEN, MOVED, replay_base=BaseReplay(make_trace("", status="error")), search=FIXTURES)
    assert check is not None and check.evidence.base_replay_ran and not check.evidence.is_drift


def test_bad_fixture_file(tmp_path: Path) -> None:
    (tmp_path / "f.yaml").write_text("facts: {a: 1}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="schema_version"):
        FixtureSearch(tmp_path)
    (tmp_path / "f.yaml").write_text("schema_version: 1\nfacts: [1]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="facts"):
        FixtureSearch(tmp_path)


def test_missing_fixture_folder_confirms_nothing(tmp_path: Path) -> None:
    assert FixtureSearch(tmp_path / "none").confirm(KEY, 1.0912) == (False, f"no fixture for {KEY}")


@pytest.mark.skipif(importlib.util.find_spec("tavily") is not None, reason="tavily-python is installed")
def test_live_tavily_without_the_package_is_a_clear_config_error() -> None:
    with pytest.raises(ConfigError, match="pip install tavily-python"):
        TavilySearch(api_key="k")


def test_a_fact_read_twice_with_different_values_has_not_moved_in_an_identical_replay() -> None:
    # A write between two reads moves the fact within one run; an identical replay reads the same two
    # values and must not pay for drift, as Level 0 finds nothing either (ratchet.gate.level0.volatile_pairs).
    from ratchet.gate.drift import moved_facts
    from ratchet.gate.level0 import level0_findings
    from ratchet.goldens.trace import VolatileRead

    golden = make_trace("done")
    golden.volatile_reads = [
        VolatileRead(key="fx.usd", value=1.0, tool_call_index=0),
        VolatileRead(key="fx.usd", value=1.1, tool_call_index=1),
    ]
    replay = golden.model_copy(deep=True)
    assert moved_facts(golden, replay) == []
    assert [f for f in level0_findings(golden, replay) if f.kind == "volatile_changed"] == []
    replay.volatile_reads[1] = VolatileRead(key="fx.usd", value=1.2, tool_call_index=1)
    assert [(m.key, m.golden_value, m.replay_value) for m in moved_facts(golden, replay)] == [("fx.usd", 1.1, 1.2)]
