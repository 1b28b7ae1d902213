"""Building the benchmark: goldens, controls, injected regressions, labels, audit and validation."""
