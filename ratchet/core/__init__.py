"""The kernel: errors, canonical JSON and YAML readers, ids, clocks, locks, the worker pool, Markdown helpers,
the chat vocabulary every layer speaks, the fence and the labels. Imports nothing else of Ratchet."""
