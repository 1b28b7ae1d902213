"""What a task is and what one run of it did: tasks, traces and goldens, noise records."""
