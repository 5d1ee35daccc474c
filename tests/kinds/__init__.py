"""Item kinds that exist only for the harness's own tests."""
