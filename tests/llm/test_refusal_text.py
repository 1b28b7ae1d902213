"""The spend cap's refusal names everything the cap counted: with grants (docs/adr/0027) money granted to
running checks counts as well as money spent and held."""

from __future__ import annotations

from ratchet.llm.gateway_model import refusal_text
from ratchet.store.models import Refusal


def test_the_global_refusal_names_spent_held_and_granted_money() -> None:
    refusal = Refusal(cap="global", limit_usd=1.0, counted_usd=0.8, run_spent_usd=0.0, run_held_usd=0.0)
    assert "all runs: $0.8000 spent, held or granted to running checks; " in refusal_text(refusal)
