"""Ratchet: a pre-merge regression gate for agent skills."""

__version__ = "0.1.0"

SIMULATED_BANNER = "SIMULATED MODELS — pipeline smoke test; not benchmark results"
