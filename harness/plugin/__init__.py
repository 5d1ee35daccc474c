"""harness/plugin."""
