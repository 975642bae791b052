"""Staged batches: submitted Cricsheet files held, validated and reviewed before anything in
them is public (batches, items, checkpoints, validation results and review decisions)."""
