"""harness/metrics/tables."""
