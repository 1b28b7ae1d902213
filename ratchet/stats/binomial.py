"""The exact test behind a statistical BLOCK: Fisher's one-sided test, curtailed at a fixed maximum.

A golden with a noise record (ratchet.goldens.noise) was replayed N times under its unchanged
skill and differed from itself f times: its flip rate is f/N. When a pair differs only where
the golden is known to vary, the gate replays it up to K times and counts r judged regressions
of k. BLOCK needs the edit's regression rate to beat the flip rate: Fisher's exact test, one
sided, of r/k against f/N (conditional on the margins, so the uncertainty in both rates counts).

The decision is fixed before the first replay: c, the fewest regressions of K that reject at
alpha. Replays stop as soon as the outcome is settled (r >= c: BLOCK; r + replays left < c: it
can no longer reach c), which is curtailment: the decision is the one the full K would give, so
the error rate stays alpha however early it stops. See docs/adr/0017-statistics.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb


def fisher_greater(r: int, k: int, f: int, n: int) -> float:
    """One-sided Fisher exact p-value that r of k beats f of n (the chance of r or more of k by luck)."""
    if not (0 <= r <= k and 0 <= f <= n):
        raise ValueError(f"counts out of range: {r} of {k}, {f} of {n}")
    total, successes = k + n, r + f
    denominator = comb(total, k)
    tail = sum(comb(successes, x) * comb(total - successes, k - x) for x in range(r, min(k, successes) + 1))
    return tail / denominator


@dataclass(frozen=True)
class CurtailedTest:
    """The plan for one pair: at most `max_replays`, BLOCK at `needed` regressions (None: unreachable)."""

    flips: int
    repeats: int
    max_replays: int
    alpha: float
    needed: int | None

    def settled(self, regressions: int, replays: int) -> bool:
        """Whether more replays can no longer change the decision."""
        if replays >= self.max_replays or self.needed is None:
            return True
        return regressions >= self.needed or regressions + (self.max_replays - replays) < self.needed

    def blocks(self, regressions: int) -> bool:
        return self.needed is not None and regressions >= self.needed

    def p_value(self, regressions: int) -> float:
        """The p-value of the least significant way the K replays could end, given r regressions so far."""
        return fisher_greater(regressions, self.max_replays, self.flips, self.repeats)


def plan_test(*, flips: int, repeats: int, max_replays: int, alpha: float) -> CurtailedTest:
    """The fewest regressions of `max_replays` that reject "no worse than the flip rate" at `alpha`."""
    needed = next(
        (r for r in range(1, max_replays + 1) if fisher_greater(r, max_replays, flips, repeats) <= alpha), None
    )
    return CurtailedTest(flips=flips, repeats=repeats, max_replays=max_replays, alpha=alpha, needed=needed)
