"""Reporting: aggregation of results and their renderings (terminal, Markdown, HTML, JSON)."""
