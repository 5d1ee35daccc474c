"""tablebench: a pytest-native benchmark harness for PDF table extraction.

Data flow: cases (PDF + ground truth) -> parse -> locate -> read -> score -> report.
"""

__version__ = "0.1.0"
