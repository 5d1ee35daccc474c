"""tablebench: a pytest-native benchmark harness for PDF table and formula extraction.

Data flow, one folder per stage: cases (PDF + ground truth) -> parse -> locate -> metrics
-> evaluate -> gating -> report, for every item kind (`harness.core.kinds`). The library API:

    from harness.cases import load_case_set
    from harness.evaluate import Evaluator
    from harness.metrics import score
    from harness.readers import read_tables
"""

__version__ = "0.1.0"
