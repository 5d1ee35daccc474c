"""harness/tex."""
