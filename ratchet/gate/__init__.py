"""The gate: one edit in, one Verdict out (check -> behavioural diff -> select -> each pair: replay ->
level0 -> drift -> hard fail -> cascade, repeated while the exact test is open -> unseen -> decide ->
static floor). gate/pair.py states a pair's order; docs/architecture.md follows a pair through it all."""
