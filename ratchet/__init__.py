"""Ratchet: a pre-merge regression gate for agent skills."""

__version__ = "0.1.0"

SIMULATED = "SIMULATED MODELS"
"""The label every artifact produced on the simulator carries."""
SIMULATED_BANNER = f"{SIMULATED} — pipeline smoke test; not benchmark results"
