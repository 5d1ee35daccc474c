"""Results streamed to disk as they arrive (`tablebench.report.stream`), and a run's controller
holding no result's texts: results.jsonl beside results.json, the same results in both."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from tablebench.core.results import ItemResult
from tablebench.report.html_data import decode_cards
from tablebench.report.stream import STREAM_FILE, FullResults, ResultStream, slim, with_texts
from tests.ci_cases import bench_args, case_set, shift_one_char, write_pages
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def _result(page: str, table: int, score: float) -> ItemResult:
    return ItemResult(parser="p", case_set="s", page=page, index=table, group="simple", outcome="ok",
                      scores={"teds": score}, gt_latex="\\begin{tabular}", gt_html="<table>", pred_html="<table>",
                      matched_text="| a |", errors=["row 1 lost"], extra={"k": 1})


def test_the_stream_reads_back_each_case_s_latest_result_in_the_order_asked(tmp_path: Path) -> None:
    stream = ResultStream(tmp_path / "run" / STREAM_FILE)
    first, second, again = _result("p001", 0, 0.5), _result("p001", 1, 0.7), _result("p001", 0, 0.9)
    for r in (first, second, again):
        stream.add(r.test_id, json.dumps(r.to_dict(), ensure_ascii=False))
    assert len(stream) == 2
    assert list(stream.read([second.test_id, first.test_id])) == [second, again]
    stream.close()
    lines = (tmp_path / "run" / STREAM_FILE).read_text(encoding="utf-8").splitlines()
    assert [ItemResult.from_dict(json.loads(line)) for line in lines] == [first, second, again]  # on disk as it came


def test_slim_keeps_what_gates_and_summaries_read_and_drops_the_texts() -> None:
    full = _result("p001", 0, 0.5)
    full.page_output = "the page " * 100
    kept = slim(full)
    assert (kept.gt_latex, kept.gt_html, kept.pred_html, kept.matched_text) == ("", "", None, None)
    assert kept.page_output == "" and kept.parser_traceback is None and full.page_output
    assert kept.extra == {"k": 1} and kept.evidence == full.evidence
    assert (kept.test_id, kept.scores, kept.outcome, kept.errors) == \
        (full.test_id, full.scores, full.outcome, full.errors)
    one, two = (replace(_result("p002", i, 0.1), spec="".join(["dir:", "/out"])) for i in (0, 1))
    assert one.spec is not two.spec and slim(one).spec is slim(two).spec  # one string for every case's facts
    back = with_texts(kept, full)
    assert back == full  # the page's output in its place again


CONFTEST = """
def pytest_terminal_summary(terminalreporter):
    reports = [r for rs in terminalreporter.stats.values() for r in rs if getattr(r, "when", "") == "call"]
    print(f"reports carrying a result: {sum(hasattr(r, 'tablebench_result') for r in reports)} of {len(reports)}")
"""


@pytest.fixture(scope="module", autouse=True)
def warm_metrics() -> None:
    """Score once in this process first: pytester drops modules a run imported, numba cannot reload."""
    from tablebench.core.table import Table
    from tablebench.metrics import score

    table = Table.from_rows([["a", "b"], ["1", "2"]], header_rows=1)
    score(table, table, ["teds"])


def test_a_run_streams_its_results_and_its_reports_keep_none(pytester: pytest.Pytester, tmp_path: Path) -> None:
    cases = case_set(tmp_path / "mini", 3)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(CONFTEST)
    report = tmp_path / "report"
    run = pytester.runpytest(*PLUGIN, *bench_args(cases, tmp_path, f"mine=dir:{exact}", report=report),
                             "-p", "no:xdist", "-s")
    assert run.ret == 0, run.stdout.str()
    results = json.loads((report / "results.json").read_text(encoding="utf-8"))["results"]
    streamed = [json.loads(line) for line in (report / STREAM_FILE).read_text(encoding="utf-8").splitlines()]
    assert results and streamed == results  # serial: arrival order is run order; the very same results
    assert results[0]["pred_html"] and results[0]["gt_html"], "results.json keeps the texts the controller dropped"
    run.stdout.fnmatch_lines([f"reports carrying a result: 0 of {len(results)}"])


@pytest.mark.parametrize("n_pages", [0, 3])
def test_results_json_written_in_pieces_is_one_json_dump_of_its_content(tmp_path: Path, n_pages: int) -> None:
    from tablebench.report.write import results_json_pieces, write_report
    from tests.test_report_samples import sample_results

    results = sample_results(n_pages=n_pages, payloads=True) if n_pages else []
    for r in results[:2]:
        r.scores["teds"] = float("nan")  # written as null
        r.gt_html += "\nline two \u2028 ünï"
    path = write_report(results, tmp_path, {"note": "a\nb"})["json"]
    text = path.read_text(encoding="utf-8")
    data = json.loads(text)
    assert text == json.dumps(data, ensure_ascii=False, indent=1) + "\n"
    assert data["results"] == json.loads(json.dumps([r.to_row() for r in results]).replace("NaN", "null"))
    assert data["meta"] == {"note": "a\nb"} and "leaderboard" in data
    assert n_pages == 0 or len(list(results_json_pieces(*_board(results), {}))) == len(results) + 2


def _board(results: list[ItemResult]) -> tuple:
    from tablebench.report.aggregate import boards

    return next(iter(boards(results).values())), results


META_HOOK = """
def pytest_tablebench_update_meta(meta, results):
    slim = getattr(results, "slim", results)
    full = list(results)
    print(f"hook: {len(results)} results, texts in memory {sum(bool(r.gt_html) for r in slim)}, "
          f"texts read {sum(bool(r.gt_html) for r in full)}")
"""


def test_the_end_of_a_run_writes_the_bytes_the_whole_results_writer_writes(pytester: pytest.Pytester,
                                                                          tmp_path: Path) -> None:
    """The end of a run reads each result's texts from results.jsonl as it writes it: results.json
    (with a baseline change per case and the gate's rows) is byte for byte what one dump of the
    whole results, aggregated from them, gives; the meta hook sees every text, memory none."""
    from tablebench.report.aggregate import boards
    from tablebench.report.results_file import read_comparisons, read_results
    from tablebench.report.write import results_json

    cases = case_set(tmp_path / "mini", 3)
    exact = write_pages(tmp_path / "exact", cases)
    worse = write_pages(tmp_path / "worse", cases, shift_one_char)
    pytester.makeconftest(META_HOOK)
    common = [*PLUGIN, f"--cases={cases}", "--metrics=teds", "-p", "no:cacheprovider", "-p", "no:xdist",
              f"--parse-cache={tmp_path / 'cache'}", "-s"]
    base = tmp_path / "base.json"
    assert pytester.runpytest(*common, f"--parser=mine=dir:{exact}", f"--report-dir={tmp_path / 'r0'}",
                              f"--save-baseline={base}").ret == 0
    report = tmp_path / "report"
    run = pytester.runpytest(*common, f"--parser=mine=dir:{worse}", f"--report-dir={report}", f"--baseline={base}",
                             "--gate=teds", "--baseline-tolerance=teds=1")
    text = (report / "results.json").read_text(encoding="utf-8")
    meta, results = read_results(report)
    assert results and all(r.baseline_change["verdict"] for r in results)
    tracks = list(boards(results).values())
    comparisons = read_comparisons(report)
    assert comparisons
    assert text == results_json(tracks[0], results, meta, tracks[1:], comparisons)
    run.stdout.fnmatch_lines([f"*hook: {len(results)} results, texts in memory 0, texts read {len(results)}"])


def test_full_results_read_each_result_s_texts_from_the_stream_and_keep_the_slim_one_s_change(tmp_path: Path) -> None:
    from tablebench.report.stream import FullResults

    stream = ResultStream(tmp_path / STREAM_FILE)
    full = [_result("p001", i, 0.5 + i / 10) for i in range(3)]
    for r in full:
        stream.add(r.test_id, json.dumps(r.to_dict(), ensure_ascii=False))
    kept = [slim(r) for r in reversed(full)]
    kept[0].baseline_change = {"verdict": "new"}  # what the end of a run adds to the results it keeps
    results = FullResults(kept, stream.read)
    assert len(results) == 3 and list(results) == list(results)  # iterated again: read again
    assert [r.test_id for r in results] == [r.test_id for r in reversed(full)]
    assert [r.gt_html for r in results] == [r.gt_html for r in full] and results[1] == full[1]
    assert results[0].baseline_change == {"verdict": "new"} and list(results[1:]) == list(reversed(full[:2]))
    stream.close()


WORKER_PIDS = """
import os, time
from pathlib import Path

PIDS = Path(os.environ["TB_TEST_PIDS"])

def pytest_configure(config):
    if hasattr(config, "workerinput"):
        with PIDS.open("a") as out:
            out.write(f"{os.getpid()}\\n")

def _gone(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] in ("Z", "X")
    except OSError:
        return True

def pytest_tablebench_update_meta(meta, results):
    pids = [int(p) for p in PIDS.read_text().split()]
    deadline = time.monotonic() + 15
    while not all(map(_gone, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    print(f"workers gone while the report is written: {len(pids)} of {len(pids)}" if all(map(_gone, pids))
          else "workers still running while the report is written")
"""


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes' states from /proc")
def test_under_xdist_the_workers_stop_while_the_controller_writes_the_report(pytester: pytest.Pytester,
                                                                             tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The workers' exit overlaps the report files (it followed them: their wall time added up)."""
    cases = case_set(tmp_path / "mini", 2)
    exact = write_pages(tmp_path / "exact", cases)
    pytester.makeconftest(WORKER_PIDS)
    monkeypatch.setenv("TB_TEST_PIDS", str(tmp_path / "pids"))
    run = pytester.runpytest_subprocess(*PLUGIN, *bench_args(cases, tmp_path, f"mine=dir:{exact}"), "-n", "2", "-s")
    assert run.ret == 0, run.stdout.str() + run.stderr.str()
    run.stdout.fnmatch_lines(["*workers gone while the report is written: 2 of 2*"])
    assert json.loads((tmp_path / "report" / "results.json").read_text(encoding="utf-8"))["results"]


def test_writing_the_report_reads_the_texts_from_disk_once_per_file(tmp_path: Path) -> None:
    """results.json and report.html each read every result's texts once (report.html walked the
    results six times, each a pass over the stream); report.html reads the results that carry a
    page output once more, first, so that it never holds every result's texts at once."""
    from tablebench.report.stream import FullResults
    from tablebench.report.write import write_report
    from tests.test_report_samples import sample_results

    full = sample_results(n_pages=3)
    stream = ResultStream(tmp_path / STREAM_FILE)
    for r in full:
        stream.add(r.test_id, json.dumps(r.to_dict(), ensure_ascii=False))
    passes = []

    def read(test_ids):
        passes.append(1)
        return stream.read(test_ids)

    write_report(FullResults([slim(r) for r in full], read), tmp_path / "run", {})
    stream.close()
    assert len(passes) == 3
    assert json.loads((tmp_path / "run" / "results.json").read_text(encoding="utf-8"))["results"] == \
        json.loads(json.dumps([r.to_row() for r in full]).replace("NaN", "null"))


def test_a_result_s_dict_is_what_asdict_gives_with_every_container_copied() -> None:
    """`ItemResult.to_dict`, hand-written for speed, against `dataclasses.asdict` on nested fields."""
    from dataclasses import asdict

    r = ItemResult(parser="p", case_set="s", page="p001", index=2, group="simple", outcome="ok",
                   scores={"teds": 0.5, "nan": float("nan")}, matched_spans=[[1, 4], [9, 12]],
                   extra={"judge": {"errors": ["a", ("b", 1)], "n": None}, "flags": [True, 1.5]},
                   errors=["x"], evidence={"cell_diff": {"counts": {"equal": 1}}}, judge_errors=["y"])
    d = r.to_dict()
    assert repr(d) == repr(asdict(r))
    d["extra"]["judge"]["errors"].append("c")
    d["matched_spans"][0][0] = 0
    d["evidence"]["cell_diff"]["counts"]["equal"] = 2
    d["judge_errors"].append("z")
    assert r.extra["judge"]["errors"] == ["a", ("b", 1)] and r.matched_spans[0] == [1, 4]
    assert r.evidence == {"cell_diff": {"counts": {"equal": 1}}} and r.judge_errors == ["y"]


def test_report_html_of_streamed_results_is_the_page_of_the_same_results_in_memory(tmp_path: Path) -> None:
    """render_html reads a run's texts one result at a time (the page outputs, then the cards in
    page order) instead of holding every result with its texts: the same page, fewer reads."""
    from tablebench.report.aggregate import boards
    from tablebench.report.html import render_html

    full = []
    for page in ("p002", "p001"):
        for table in (1, 0):
            r = _result(page, table, 0.25 + table / 2)
            if table == 0:
                r.page_output = f"output of {page}: | a |"
            full.append(r)
    stream = ResultStream(tmp_path / STREAM_FILE)
    for r in full:
        stream.add(r.test_id, json.dumps(r.to_dict(), ensure_ascii=False))
    reads: list[str] = []

    def read(ids):
        for test_id in ids:
            reads.append(test_id)
            yield from stream.read([test_id])

    board = next(iter(boards([slim(r) for r in full]).values()))
    lazy = render_html(board, FullResults([slim(r) for r in full], read), {"case_set": "s"})
    assert lazy == render_html(board, full, {"case_set": "s"}) and len(decode_cards(lazy)) == 4
    assert len(reads) == 2 + 4  # the two results with a page output, then each card's result once
    stream.close()
