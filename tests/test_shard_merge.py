"""`--shard=I/N` page assignment and `tablebench report merge` (library and command line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablebench.cases.shard import assign, fingerprint, parse_shard, select
from tablebench.cli import main
from tablebench.core.results import ItemResult
from tablebench.report.merge import merge_runs
from tablebench.report.write import write_report
from tests.ci_cases import SYNTH


def synth_weights() -> dict[str, int]:
    """Page id -> table count of the committed synth-v1 set."""
    out = {}
    for path in sorted(SYNTH.glob("[0-9]*.json")):
        blocks = json.loads(path.read_text(encoding="utf-8"))["blocks"]
        out[f"p{path.stem}"] = sum(b["type"] == "table" for b in blocks)
    return {k: v for k, v in out.items() if v}


@pytest.mark.parametrize("text", ["0/3", "4/3", "1", "a/b", "1/0", ""])
def test_bad_shards_are_one_line_errors(text):
    with pytest.raises(ValueError, match="expected I/N"):
        parse_shard(text)
    assert parse_shard(" 2 / 3 ") == (2, 3)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_shards_cover_every_page_once_balanced_by_tables(n):
    weights = synth_weights()
    shards = [select(weights, i, n) for i in range(1, n + 1)]
    assert sorted(p for s in shards for p in s) == sorted(weights), "every page in exactly one shard"
    loads = [sum(weights[p] for p in s) for s in shards]
    mean = sum(weights.values()) / n
    assert max(loads) <= mean * 1.05 + max(weights.values()), loads
    if n <= 3:
        assert min(loads) >= mean * 0.9, loads


def test_more_shards_than_pages_are_refused_before_any_work():
    with pytest.raises(ValueError, match="100000000 shards for 2 pages: use at most 2"):
        assign({"a": 1, "b": 2}, 100_000_000)  # was a list per shard per page: gigabytes
    assert select({"a": 1, "b": 2}, 2, 2) | select({"a": 1, "b": 2}, 1, 2) == {"a", "b"}


def test_assignment_ignores_listing_order_and_survives_growth():
    weights = synth_weights()
    backwards = dict(reversed(list(weights.items())))
    assert assign(weights, 4) == assign(backwards, 4)
    old = {k: v for k, v in weights.items() if int(k[1:]) <= 90}
    for n in (3, 8):
        before, after = assign(old, n), assign(weights, n)
        moved = sum(before[p] != after[p] for p in old)
        assert moved <= len(old) // 10, f"{moved} of {len(old)} pages changed shard when 10% more were added"


def test_fingerprint_follows_ground_truth_and_pdf(tmp_path: Path):
    from tablebench.cases import load_case_set
    from tests.ci_cases import case_set

    pages = [p for p in load_case_set(case_set(tmp_path / "a", 2)).pages if p.tables]
    same = [p for p in load_case_set(case_set(tmp_path / "b", 2)).pages if p.tables]
    assert fingerprint(pages) == fingerprint(same) == fingerprint(list(reversed(same)))
    gt = tmp_path / "b" / "ground_truth" / "002.json"
    data = json.loads(gt.read_text())
    first = next(b for b in data["blocks"] if b["type"] == "table")
    first["data"] = first["data"].replace("&", "& x", 1)
    gt.write_text(json.dumps(data))
    assert fingerprint([p for p in load_case_set(tmp_path / "b").pages if p.tables]) != fingerprint(pages)


# -- merge ------------------------------------------------------------------------------------------
META = {"case_set": "s", "case_set_fingerprint": "abc", "parsers": ["p"], "parser_versions": {"p": "1"},
        "metrics": ["teds"], "version": "0.1.0", "timestamp": "2026-01-01T00:00:00+00:00"}


def result(page: str, table: int, teds: float, parser: str = "p") -> ItemResult:
    return ItemResult(parser=parser, case_set="s", page=page, index=table, group="simple", outcome="ok",
                       scores={"teds": teds})


def run(folder: Path, results: list[ItemResult], **meta: object) -> Path:
    """A shard's report folder, recorded complete as a finished run records itself."""
    from tablebench.core.completeness import measure

    done = measure([r.test_id for r in results], [r.test_id for r in results]).to_dict()
    write_report(results, folder, {**META, "completeness": done, **meta})
    return folder


def shards(tmp_path: Path, **meta: object) -> list[Path]:
    return [run(tmp_path / "s1", [result("p003", 0, 0.5), result("p001", 1, 0.25)], shard="1/2", **meta),
            run(tmp_path / "s2", [result("p001", 0, 1.0), result("p002", 0, 0.75)], shard="2/2")]


def test_merge_orders_like_an_unsharded_run_and_spans_the_shards(tmp_path: Path):
    meta, results = merge_runs(shards(tmp_path))
    assert [(r.page, r.index, r.scores["teds"]) for r in results] == [
        ("p001", 0, 1.0), ("p001", 1, 0.25), ("p002", 0, 0.75), ("p003", 0, 0.5)]
    assert meta["tables"] == 4 and "shard" not in meta and len(meta["merged_from"]) == 2
    assert main(["report", "merge", str(tmp_path / "s1"), str(tmp_path / "s2" / "results.json"),
                 "--out", str(tmp_path / "m")]) == 0
    merged = json.loads((tmp_path / "m" / "results.json").read_text())
    assert [r["page"] for r in merged["results"]] == ["p001", "p001", "p002", "p003"]
    assert (tmp_path / "m" / "report.html").is_file() and (tmp_path / "m" / "leaderboard.md").is_file()


@pytest.mark.parametrize("change, says", [
    ({"metrics": ["teds", "grits"]}, "metrics differs: teds,grits in "),
    ({"case_set_fingerprint": "xyz"}, "case_set_fingerprint differs"),
    ({"parser_versions": {"p": "2"}}, "parser_versions differs"),
    ({"shard": "1/3"}, "shards of different splits"),
])
def test_inconsistent_shards_are_refused_in_one_line(tmp_path: Path, capsys, change, says):
    first, second = shards(tmp_path)
    run(first, [result("p003", 0, 0.5)], **{"shard": "1/2", **change})
    with pytest.raises(ValueError, match=says):
        merge_runs([first, second])
    assert main(["report", "merge", str(first), str(second), "--out", str(tmp_path / "m")]) == 1
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "m").exists(), "nothing written for a refused merge"


_MERGE_UNDER_LIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # a list of every missing shard took gigabytes
from tablebench.report.merge import merge_runs
try:
    merge_runs(sys.argv[1:])
except ValueError as exc:
    print(exc)
"""


def test_a_hand_edited_shard_count_is_refused_in_one_line_without_listing_every_missing_shard(tmp_path: Path):
    import subprocess
    import sys

    first = run(tmp_path / "s1", [result("p001", 0, 0.5)], shard="1/100000000")
    proc = subprocess.run([sys.executable, "-c", _MERGE_UNDER_LIMIT, str(first)], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1], timeout=120)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert proc.stdout.splitlines() == [
        "report merge: shard 2/100000000, 3/100000000, 4/100000000, 5/100000000, 6/100000000 and 99,999,994 more "
        "missing (got 1 of 100,000,000)"]


def test_missing_twice_given_and_overlapping_shards_are_refused(tmp_path: Path):
    first, second = shards(tmp_path)
    with pytest.raises(ValueError, match=r"^report merge: shard 2/2 missing \(got 1 of 2\)$"):
        merge_runs([first])
    with pytest.raises(ValueError, match="shard 1/2 given twice"):
        merge_runs([first, first, second])
    plain = run(tmp_path / "plain", [result("p009", 0, 1.0)])
    with pytest.raises(ValueError, match="is not a shard run"):
        merge_runs([first, second, plain])
    a = run(tmp_path / "a", [result("p001", 0, 1.0)])
    b = run(tmp_path / "b", [result("p001", 0, 0.5), result("p002", 0, 0.5)])
    with pytest.raises(ValueError, match=r"s/p001::t0\[p\] is in both"):
        merge_runs([a, b])
    with pytest.raises(ValueError, match="no results.json"):
        merge_runs([tmp_path / "nowhere"])


def test_shards_of_one_label_from_different_local_outputs_are_refused(tmp_path: Path):
    first = run(tmp_path / "s1", [result("p003", 0, 0.5)], shard="1/2", parser_specs={"p": "dir:/data/run-a"})
    second = run(tmp_path / "s2", [result("p001", 0, 1.0)], shard="2/2", parser_specs={"p": "dir:/data/run-b"})
    with pytest.raises(ValueError, match="parser 'p' is dir:/data/run-a in .* but dir:/data/run-b in"):
        merge_runs([first, second])
    served = run(tmp_path / "s3", [result("p001", 0, 1.0)], shard="2/2",
                 parser_specs={"p": "vlm:openai/m?api_base=http://host-b/v1"})
    run(first, [result("p003", 0, 0.5)], shard="1/2", parser_specs={"p": "vlm:openai/m?api_base=http://host-a/v1"})
    assert len(merge_runs([first, served])[1]) == 2  # one model reached through two servers: one parser


def test_merge_out_into_one_of_its_inputs_is_refused_in_one_line(tmp_path: Path, capsys):
    inputs = shards(tmp_path)
    before = (inputs[0] / "results.json").read_bytes()
    for out in (inputs[0], inputs[1] / ".." / inputs[1].name):
        assert main(["report", "merge", *map(str, inputs), "--out", str(out)]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--out" in err and "is one of the runs it merges" in err, err
    assert (inputs[0] / "results.json").read_bytes() == before, "the input is left as it was"
