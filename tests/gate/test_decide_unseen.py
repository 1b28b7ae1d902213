"""What the gate could not check (its own settings changed, a submodule moved): named first, never a PASS."""

from __future__ import annotations

from ratchet.gate.decide import no_change, with_unchecked
from ratchet.gate.models import Verdict

SETTINGS = "the gate's own settings changed (ratchet.yaml, configs/x.yaml): checked with the base's settings; review the change"


def _pass(on_error: str = "warn") -> Verdict:
    return no_change(base="a", head="b", simulated=True, on_error=on_error)


def test_nothing_unchecked_leaves_the_verdict_alone() -> None:
    assert with_unchecked(_pass()) == _pass()


def test_a_settings_change_warns_and_blocks_under_on_error_block() -> None:
    warn = with_unchecked(_pass(), settings_changed=["ratchet.yaml", "configs/x.yaml"])
    assert (warn.decision, warn.summary, warn.settings_changed) == (
        "WARN",
        f"{SETTINGS}; no skill changed",
        ["ratchet.yaml", "configs/x.yaml"],
    )
    assert with_unchecked(_pass("block"), settings_changed=["ratchet.yaml"]).decision == "BLOCK"


def test_a_block_stays_a_block_and_notes_come_first() -> None:
    blocked = _pass().model_copy(update={"decision": "BLOCK", "summary": "1 regression(s)"})
    verdict = with_unchecked(blocked, submodules_changed=["skills/a/vendor"])
    assert (verdict.decision, verdict.summary, verdict.submodules_changed) == (
        "BLOCK",
        "skills/a/vendor is a submodule whose commit changed: Ratchet cannot see inside it; 1 regression(s)",
        ["skills/a/vendor"],
    )


def test_nothing_blessed_is_a_warning() -> None:
    verdict = with_unchecked(_pass(), nothing_blessed_at="4b825dc642")
    assert (verdict.decision, verdict.summary) == ("WARN", "nothing is blessed at 4b825dc642: no golden to replay")


def test_nothing_blessed_warns_even_under_block_a_first_push_is_not_tampering() -> None:
    strict = _pass().model_copy(update={"on_error": "block"})
    assert with_unchecked(strict, nothing_blessed_at="4b825dc642").decision == "WARN"
    assert with_unchecked(strict, settings_changed=["ratchet.yaml"]).decision == "BLOCK"
