"""What a pair that could not be checked (a model call that failed for good) does to the verdict."""

from __future__ import annotations

from enum import StrEnum


class OnError(StrEnum):
    """The `--on-error` policy of `ratchet check`."""

    WARN = "warn"
    """An unchecked pair makes the verdict WARN at worst."""
    BLOCK = "block"
    """An unchecked pair BLOCKs (what `ratchet check` uses when no --on-error is given; it then exits 3)."""


BUDGET_STOPPED = "budget"
"""`decided_by` of a pair the spend cap stopped before it was checked: unchecked like any error pair, but
the cause is the budget the user set (BudgetError, exit 2), not infrastructure (exit 3)."""
