"""tablebench: a pytest-native benchmark harness for PDF table and formula extraction.

Data flow, one folder per stage: cases (PDF + ground truth) -> parse -> locate -> metrics
-> evaluate -> gating -> report, for every item kind (`tablebench.core.kinds`). The library API:

    from tablebench.cases import load_case_set
    from tablebench.evaluate import Evaluator
    from tablebench.metrics import score
    from tablebench.readers import read_tables
"""

__version__ = "0.1.0"
