"""A team's first hour: `ratchet init` and `ratchet demo`."""
