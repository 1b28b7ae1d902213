"""Trigger evaluation: does each skill fire on the requests it should, and only on those? (docs/triggers.md)"""
