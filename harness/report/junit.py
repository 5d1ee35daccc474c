"""A junit XML file for a run that pytest did not write: `tablebench report merge --junitxml FILE`.

Why: a sharded CI job reads one junit file for the whole run, as it would from one pytest
session; the shards' own files each hold only a part. Each case is a test case as the plugin's
items are (classname `SET.PAGE`, name `tN[LABEL]`, the id and outcome as properties), failed
or skipped (a known failure, as pytest writes an xfail) by the verdict the result carries
(`tablebench.gating.rules.verdict_of`): nothing is decided here.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path

from tablebench.core.files import write_atomic
from tablebench.core.results import ItemResult
from tablebench.gating.rules import verdict_of

SUITE = "tablebench"


def junit_xml(results: Sequence[ItemResult], suite: str = SUITE) -> str:
    """The file's text: one testsuite, one testcase per result in the given order."""
    cases, failures, skipped = [], 0, 0
    for r in results:
        set_page, _, name = r.test_id.partition("::")
        case = ET.Element("testcase", classname=set_page.replace("/", "."), name=name,
                          time=f"{r.parse_seconds:.3f}")
        props = ET.SubElement(case, "properties")
        for key, value in (("id", r.test_id), ("outcome", r.outcome), *sorted(r.scores.items())):
            ET.SubElement(props, "property", name=key, value=str(value))
        verdict = verdict_of(r)
        if verdict is not None and verdict.status == "fail":
            failures += 1
            ET.SubElement(case, "failure", message=verdict.message or r.outcome).text = verdict.message or r.outcome
        elif verdict is not None and verdict.status == "known":
            skipped += 1
            ET.SubElement(case, "skipped", type="pytest.xfail", message=verdict.message)
        cases.append(case)
    root = ET.Element("testsuites")
    node = ET.SubElement(root, "testsuite", name=suite, errors="0", failures=str(failures), skipped=str(skipped),
                         tests=str(len(cases)))
    node.extend(cases)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(results: Sequence[ItemResult], path: str | os.PathLike) -> Path:
    """Write `junit_xml(results)` to `path` atomically."""
    return write_atomic(Path(path), junit_xml(results))
