"""Skills as files: SKILL.md parsing and validation, skill sets, where skills live, names, client policies."""
