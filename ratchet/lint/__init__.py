"""Reports over a skill library without replaying anything: catalog budgets, collisions, routing."""
