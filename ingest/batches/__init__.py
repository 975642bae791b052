"""Staged batches: submitted Cricsheet files held, validated and reviewed before anything in
them is public (seed 001 §4 batch-staging model, §6 batch validation and review)."""
