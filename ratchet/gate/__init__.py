"""The gate: select -> replay -> level0 -> (cascade -> drift) -> decide, for one edit."""
