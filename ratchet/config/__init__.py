"""Settings: ratchet.yaml (project), the RATCHET_* environment (env), the harness and retry sections and the
gate configurations. Models and their loaders only."""
