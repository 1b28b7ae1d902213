"""Running the benchmark: plans, the scheduling loop, shards, noisy runs and the smoke run."""
