"""harness/metrics/formulas."""
