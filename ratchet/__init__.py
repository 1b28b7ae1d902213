"""Ratchet: a pre-merge regression gate for agent skills."""

__version__ = "0.1.0"

SIMULATED = "SIMULATED MODELS"
"""The label every artifact produced on the simulator carries."""
SIMULATED_BANNER = f"{SIMULATED} — pipeline smoke test; not benchmark results"
"""The benchmark's label: its simulated runs prove the pipeline, their numbers are no results."""
SIMULATED_CHECK_BANNER = f"{SIMULATED} — the offline simulator answered, not your models; for a live check set upstream: live in ratchet.yaml"
"""A team's own simulated check, recording or review page: where the answer came from, and what makes it live."""
