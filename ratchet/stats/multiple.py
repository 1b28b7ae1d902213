"""Multiple testing: Holm's step-down adjustment, for a family of one-sided tests read together.

A watch run tests one hypothesis per skill (ratchet.watch.stats) and a check's trigger step one per trigger query
(ratchet.triggers.compare); a decision that flags any of them must hold its error rate over all of them, and
Holm's adjustment keeps the chance of flagging any true null at most alpha, uniformly more powerful than
Bonferroni.
"""

from __future__ import annotations

from collections.abc import Sequence


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (each capped at 1, never below an earlier one's)."""
    order = sorted(range(len(p_values)), key=lambda i: (p_values[i], i))
    adjusted = [1.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted
