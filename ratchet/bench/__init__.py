"""SkillRegress-Bench: labeled skill edits, runs of gate configurations over them, and reports."""
