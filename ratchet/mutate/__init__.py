"""Mutation testing of a team's own goldens: deliberate, model-free breakages of a skill folder, each
replayed through the normal check, scored by how many the goldens notice (`ratchet mutate`)."""
