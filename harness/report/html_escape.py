"""The one escape of report HTML: any value as text for element content or a quoted attribute.

report.html, compare.html and their sections (cards, failures, regressions, histograms) put
every text they did not write themselves through `e`, so one rule decides what is safe.
"""

from __future__ import annotations

from html import escape


def e(value: object) -> str:
    """`str(value)` escaped for element content and double- or single-quoted attribute values."""
    return escape(str(value), quote=True)
