"""The benchmark's data on disk: edits, labels, results, the journal and the dataset digest."""
