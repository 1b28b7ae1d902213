from __future__ import annotations

from typing import Any

from ratchet.core.jsonio import digest
from ratchet.goldens.final_state import final_state_of, net_effects
from ratchet.goldens.trace import FinalState, StateChange, ToolCall, Trace


def change(path: str, before: Any, after: Any) -> StateChange:
    return StateChange(path=path, before=before, after=after)


A = {"to": "a@x.io", "subject": "hi"}
B = {"to": "b@x.io", "subject": "hi"}


def test_a_list_nets_to_the_items_added_and_removed_whatever_the_order() -> None:
    one = [change("email.outbox", [], [A]), change("email.outbox", [A], [A, B])]
    other = [change("email.outbox", [], [B]), change("email.outbox", [B], [B, A])]
    assert net_effects(one) == net_effects(other) == {"email.outbox": {"added": [A, B], "removed": []}}
    assert final_state_of(one) == final_state_of(other)


def test_pre_existing_items_are_not_part_of_the_effect_and_duplicates_count() -> None:
    old = {"id": 1}
    changes = [change("invoices.payments", [old], [old, A]), change("invoices.payments", [old, A], [old, A, A])]
    assert net_effects(changes) == {"invoices.payments": {"added": [A, A], "removed": []}}


def test_a_mapping_recurses_per_key_and_a_scalar_keeps_first_before_and_last_after() -> None:
    changes = [
        change("github.issue", {"state": "open", "title": "t", "labels": ["x"]}, {"state": "closed", "title": "t"}),
        change("files.a.txt", None, "one"),
        change("files.a.txt", "one", "two"),
    ]
    assert net_effects(changes) == {
        "files.a.txt": {"from": None, "to": "two"},
        "github.issue.labels": {"added": [], "removed": ["x"]},
        "github.issue.state": {"from": "open", "to": "closed"},
    }


def test_a_path_whose_net_effect_is_nothing_is_dropped() -> None:
    changes = [change("files.a.txt", "one", "two"), change("files.a.txt", "two", "one"), change("t.l", [A], [A])]
    assert net_effects(changes) == {}
    assert final_state_of(changes) is None


def test_the_digest_is_sha256_over_the_canonical_effects() -> None:
    state = final_state_of([change("files.a.txt", None, "x")])
    assert state == FinalState(digest=digest({"files.a.txt": {"from": None, "to": "x"}}), effects=state.effects)  # type: ignore[union-attr]


def _trace(calls: list[ToolCall], **kw: Any) -> Trace:
    return Trace(task_id="t1", prompt="p", seed=1, frozen_time="2026-10-14T16:00:00Z", tool_calls=calls, **kw)


def test_with_totals_fills_the_final_state_and_a_run_that_changed_nothing_writes_none() -> None:
    write = ToolCall(index=0, name="email_send", effect="send", state_changes=[change("email.outbox", [], [A])])
    finished = _trace([write]).with_totals()
    assert finished.final_state == final_state_of(write.state_changes)
    assert '"final_state"' in finished.to_json()
    quiet = _trace([ToolCall(index=0, name="clock_now", effect="read")]).with_totals()
    assert quiet.final_state is None and '"final_state"' not in quiet.to_json()


def test_a_golden_recorded_before_the_field_has_its_final_state_computed() -> None:
    write = ToolCall(index=0, name="email_send", effect="send", state_changes=[change("email.outbox", [], [A])])
    old = _trace([write])
    assert old.final_state is None
    assert old.final_state_or_computed() == final_state_of(write.state_changes)


def test_a_child_written_before_its_parent_nets_to_the_parents_last_write() -> None:
    # a declared tool's `set:` may write a whole record after another wrote one field of it
    changes = [
        change("crm.acct.status", "open", "pending"),
        change("crm.acct", {"status": "pending"}, {"status": "closed"}),
    ]
    assert net_effects(changes) == {"crm.acct.status": {"from": "open", "to": "closed"}}
    later = [
        change("crm.acct", {"status": "open"}, {"status": "pending"}),
        change("crm.acct.status", "pending", "open"),
    ]
    assert net_effects(later) == {}


def test_a_dotted_key_is_not_a_nested_mapping() -> None:
    dotted = net_effects([change("files", {}, {"a.md": "x"})])
    nested = net_effects([change("files", {}, {"a": {"md": "x"}})])
    assert dotted == {'files["a.md"]': {"to": "x"}} and nested == {"files.a.md": {"to": "x"}}


def test_a_key_set_to_null_is_not_an_absent_key() -> None:
    assert net_effects([change("crm.acct", {"status": "open"}, {"status": "open", "hold": None})]) == {
        "crm.acct.hold": {"to": None}
    }
    assert net_effects([change("crm.acct", {"hold": None}, {})]) == {"crm.acct.hold": {"from": None}}


def test_true_and_1_are_different_states_and_nan_reads_as_json_stores_it() -> None:
    assert final_state_of([change("a.b", None, True)]) != final_state_of([change("a.b", None, 1)])
    nan = final_state_of([change("fx.rate", 1.0, float("nan"))])
    assert nan is not None and nan.effects == {"fx.rate": {"from": 1.0, "to": None}}
    assert FinalState.model_validate_json(nan.model_dump_json()) == nan
