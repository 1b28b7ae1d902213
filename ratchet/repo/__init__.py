"""The user's git repository, read without changing it: revisions, exported trees, scratch folders, hooks."""
