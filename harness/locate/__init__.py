"""harness/locate."""
