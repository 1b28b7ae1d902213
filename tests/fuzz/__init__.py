"""The bad-input probe: generated malformed inputs for every file Ratchet reads and every command.

tests/fuzz/cases.py generates the cases (deterministically, from a seed), tests/fuzz/harness.py
runs one and lists how it broke the "bad input gets a clear error" contract, test_fuzz.py runs a
fast subset under pytest (all of them with RATCHET_FUZZ=all) and `python -m tests.fuzz.report`
prints the summary.
"""
