"""RunOptions read once for the plugin and the CLI, decide_run and finish_run for both, and the one xdist internal."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_PARSE_TIMEOUT, GateSpec, RunOptions, Tolerance
from tablebench.core.results import ItemResult
from tablebench.gating.decide import Decisions
from tablebench.gating.options import read_options


def test_defaults_are_the_dataclass_defaults_and_every_field_is_read():
    fields = [f.name for f in dataclasses.fields(RunOptions)]
    assert read_options({}) == RunOptions()
    assert read_options({name: getattr(RunOptions(), name) for name in fields}) == RunOptions()
    from tablebench.plugin.options import DESTS

    assert sorted(DESTS) == sorted(fields), "the plugin reads every option"
    assert RunOptions().parse_timeout == DEFAULT_PARSE_TIMEOUT and RunOptions().gate_alpha == DEFAULT_ALPHA
    with pytest.raises(TypeError, match="no option colour"):
        read_options({"colour": "red"})


def test_values_are_parsed_once_into_typed_frozen_fields():
    options = read_options({"parsers": ["pypdf,mine=dir:/x,y"], "min_scores": ["teds=0.8"], "gates": ["teds:complex"],
                            "baseline": "b.json", "parse_timeout": "2.5", "repeat": "3", "shard": " 2 / 3 ",
                            "per_table": "off", "judge": "openai/x", "locator": "llm"})
    assert dict(options.parsers) == {"pypdf": "pypdf", "mine": "dir:/x,y"}
    assert dict(options.min_scores) == {"teds": 0.8} and options.gates == (GateSpec("teds", "complex"),)
    assert (options.parse_timeout, options.repeat, options.shard) == (2.5, 3, (2, 3))
    assert options.locator_model == "openai/x", "the LLM locator defaults to the judge's model"
    assert not options.per_table and read_options({}).per_table and read_options({}).tolerance == Tolerance(0.01)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.repeat = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        options.parsers["other"] = "x"  # type: ignore[index]


@pytest.mark.parametrize("values, says", [
    ({"parse_timeout": "nan"}, "--parse-timeout: expected a finite number, got 'nan'"),
    ({"parse_timeout": "0"}, "--parse-timeout must be positive, got '0'"),
    ({"parse_timeout": "1e20"}, "--parse-timeout must be <= 86400, got '1e20'"),
    ({"tolerance": "-0.1"}, "--baseline-tolerance must be >= 0, got '-0.1'"),
    ({"tolerance": "inf"}, "--baseline-tolerance: expected a finite number, got 'inf'"),
    ({"gate_alpha": "nan"}, "--gate-alpha must be a finite number > 0 and <= 0.5, got 'nan'"),
    ({"gate_min_effect": "-1"}, "--gate-min-effect must be a finite number >= 0 and <= 1, got '-1'"),
    ({"repeat": "0"}, "--repeat must be a positive integer, got '0'"),
    ({"repeat": "99999999999999999999"}, "--repeat must be <= 1000, got '99999999999999999999'"),
    ({"repeat": "9" * 5000}, "--repeat must be a positive integer, got '99999999"),
    ({"parse_concurrency": "x"}, "--parse-concurrency must be a positive integer, got 'x'"),
    ({"max_page_failures": "-1"}, "--max-page-failures must be 0 (never stop) or a positive integer, got '-1'"),
    ({"shard": "4/3"}, "--shard '4/3': expected I/N"),
    ({"gates": ["teds:"]}, "--gate 'teds:': expected METRIC[:SUBSET]"),
    ({"gates": ["teds"]}, "--gate needs --baseline FILE"),
    ({"min_scores": ["teds=2"]}, "--min-score 'teds=2': teds is on 0-1"),
    ({"locator": "llm"}, "--locator llm needs --locator-model MODEL (or --judge MODEL)"),
    ({"parsers": ["dir:/x", "dir:/x/"]}, "two parsers have the label 'dir:/x'"),
])
def test_bad_values_are_one_line_errors(values, says):
    with pytest.raises(ValueError) as info:
        read_options(values)
    assert says in str(info.value) and "\n" not in str(info.value)


def test_the_merge_command_refuses_what_the_plugin_refuses(tmp_path: Path, capsys):
    from tablebench.cli import main

    assert main(["report", "merge", str(tmp_path), "--out", str(tmp_path / "m"), "--gate-alpha=nan"]) == 1
    assert "--gate-alpha must be a finite number > 0 and <= 0.5, got 'nan'" in capsys.readouterr().err
    assert main(["report", "merge", str(tmp_path), "--out", str(tmp_path / "m"), "--gate=teds"]) == 1
    assert "--gate needs --baseline FILE" in capsys.readouterr().err


# -- finish_run ------------------------------------------------------------------------------------
def results(teds: float) -> list[ItemResult]:
    return [ItemResult(parser="p", case_set="s", page=f"p{i:03d}", index=0, group="simple", outcome="ok",
                        scores={"teds": teds}) for i in range(1, 9)]


def test_the_run_is_decided_then_written_and_saved_and_survives_an_unwritable_folder(tmp_path: Path):
    from tablebench.core.completeness import of_meta
    from tablebench.gating.baseline import save_baseline
    from tablebench.gating.decide import GatePolicy, decide_run
    from tablebench.gating.rules import Gate
    from tablebench.report.finish import FinishPolicy, finish_run
    from tablebench.report.results_file import load_baseline

    save_baseline(results(1.0), tmp_path / "base.json")
    decider = GatePolicy(Gate(baseline=load_baseline(tmp_path / "base.json")), (GateSpec("teds"),), groups=("p",))
    policy = FinishPolicy(report_dir=tmp_path / "r", save_baseline=str(tmp_path / "new.json"),
                          update_meta=lambda meta, _: meta.update(seen=sorted(meta)))
    now = results(0.5)
    meta = {"case_set": "s", "baseline": "base.json"}
    decisions = decide_run(now, decider, of_meta(meta, len(now)))
    assert decisions.failed and decisions.gate_lines[0].startswith("REGRESSION: teds [p]")
    assert [r.verdict["status"] for r in now] == ["fail"] * 8, "each case decided, kept on its result"
    assert {r.baseline_change["verdict"] for r in now} == {"regressed"}
    end = finish_run(now, meta, policy, decisions)
    assert end.failed and end.error is None and set(end.written) == {"baseline", "json", "summary", "csv", "markdown", "html", "gate"}
    meta = json.loads((tmp_path / "r" / "results.json").read_text())["meta"]
    assert meta["gate"][0].startswith("REGRESSION: teds [p]") and meta["baseline"] == "base.json"
    assert meta["seen"] == ["baseline", "case_set", "gate"], "update_meta sees the gate lines"
    assert json.loads((tmp_path / "r" / "gate.json").read_text())[0]["failed"] is True
    assert len(end.case_failures) == 8

    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    end = finish_run(results(1.0), {}, dataclasses.replace(policy, report_dir=blocked / "r"), Decisions())
    assert end.error == end.notes[0] and end.error.startswith(f"tablebench report not written to {blocked}")
    assert "baseline" in end.written and not end.comparisons


# -- the one reader of xdist internals ---------------------------------------------------------------
def test_the_worker_queue_is_read_by_what_it_is_and_a_changed_xdist_is_said():
    from tablebench.plugin.workers import XdistChanged, worker_queue

    class Queue:
        @contextlib.contextmanager
        def lock(self):
            yield [3, 4, "shutdown"]

    def config(*plugins, worker=True):
        manager = SimpleNamespace(get_plugins=lambda: list(plugins))
        return SimpleNamespace(pluginmanager=manager, **({"workerinput": {}} if worker else {}))

    assert worker_queue(config(worker=False)) is None
    assert worker_queue(config(object(), SimpleNamespace(torun=Queue()))) == [3, 4]
    with pytest.raises(XdistChanged, match="found 0 worker queues"):
        worker_queue(config(object()))
