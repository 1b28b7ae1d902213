"""`ratchet tasks generate`: task variants from templates with knobs, audited, written for review (issue 30)."""
