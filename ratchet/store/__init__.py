"""The SQLite store: runs, the model-call ledger, budget reservations, its schema and owners."""
