"""Small, pure statistics used by the gate and the bench: binomial intervals and bounds."""
