"""Verdict outputs for people and CI: Markdown, JUnit XML, the JSON schema, and how findings group.

Every renderer is a pure function Verdict -> str: no clock, no randomness, sorted where the
verdict gives no order, so the same verdict always gives byte-identical files (a CI diff of two
runs' reports shows only what changed). docs/outputs.md describes each format.
"""
