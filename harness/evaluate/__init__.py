"""harness/evaluate."""
