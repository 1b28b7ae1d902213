"""The agent side: the MinimalRunner loop (runner.py), the trigger matcher (trigger.py), prompts."""
