"""A base with nothing blessed (a first push, the commit before adoption): WARN, with that reason first.

The edit that adopts Ratchet adds ratchet.yaml, skills and their goldens at once; against a base that
has none of them, neither the new ratchet.yaml nor "no golden exercises skill X" is what to say.
"""

from __future__ import annotations

from ratchet.gate.decide import no_change, with_unchecked
from ratchet.gate.models import Unseen, Verdict

NOTHING = "nothing is blessed at 4b825dc642: no golden to replay"
SETTINGS = "the gate's own settings changed (ratchet.yaml): checked with the base's settings; review the change"


def _strict(unseen: list[Unseen]) -> Verdict:
    """What evaluate answers for two new skills with no golden, under --on-error block."""
    verdict = no_change(base="a", head="b", simulated=True, on_error="block")
    return verdict.model_copy(update={"decision": "WARN", "skills_changed": ["x", "y"], "unseen": unseen})


def _unrouted(skill: str) -> Unseen:
    return Unseen(
        kind="unrouted",
        skill=skill,
        level="warn",
        detail=(f"no golden exercises skill {skill}: record and bless a task for it (ratchet record, ratchet bless)"),
    )


def test_adopting_ratchet_with_nothing_blessed_at_the_base_warns_and_says_so_first() -> None:
    unfollowed = Unseen(kind="unfollowed", skill="y", level="warn", detail="the simulator could not follow skill y")
    verdict = with_unchecked(
        _strict([_unrouted("x"), unfollowed, _unrouted("y")]),
        settings_changed=["ratchet.yaml"],
        nothing_blessed_at="4b825dc642",
    )
    assert (verdict.decision, verdict.summary) == ("WARN", f"{NOTHING}; {SETTINGS}")
    assert verdict.settings_changed == ["ratchet.yaml"]
    assert verdict.unseen == [unfollowed]  # "no golden exercises ..." was the base's lack, said once above


def test_a_settings_change_over_blessed_goldens_still_blocks_under_on_error_block() -> None:
    verdict = with_unchecked(_strict([_unrouted("x")]), settings_changed=["ratchet.yaml"])
    assert verdict.decision == "BLOCK"
    assert verdict.unseen == [_unrouted("x")]
