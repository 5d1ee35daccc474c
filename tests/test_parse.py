"""tablebench.parse.runner: isolation (crash, segfault, hang, garbage), outcomes, the on-disk cache."""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tablebench.parse.protocol import ParseOutput, require
from tablebench.parse.runner import (
    ParseCache,
    ParseResult,
    ParseRunner,
    cache_key,
    parse_pdf,
    settle,
    sha256_file,
)


# -- parsers that misbehave; module level so the worker process can unpickle them ----------
class Echo:
    """Returns fixed text and appends a line to `log` per call, to count real parses."""

    name = "echo"

    def __init__(self, text: str = "hello | world", log: str = "", version: str = "1", mode: str = "a") -> None:
        self.text, self.log, self.version, self.config = text, log, version, {"mode": mode}

    def parse(self, pdf_path: Path) -> ParseOutput:
        if self.log:
            with open(self.log, "a") as handle:
                handle.write(f"{os.getpid()} {Path(pdf_path).name}\n")
        return ParseOutput(self.text, {"format": "text"})


class Crashes(Echo):
    """Fails as `how` says on a PDF named bad*.pdf, parses any other one."""

    name = "crashes"

    def __init__(self, how: str) -> None:
        super().__init__("fine")
        self.how = how

    def parse(self, pdf_path: Path) -> ParseOutput:
        if Path(pdf_path).name.startswith("bad"):
            if self.how == "exit":
                os._exit(3)
            if self.how == "segfault":
                ctypes.string_at(0)  # reads address 0: SIGSEGV
            raise ValueError("bad table\n  on line two")
        return super().parse(pdf_path)


class Hangs(Echo):
    name = "hangs"

    def parse(self, pdf_path: Path) -> ParseOutput:
        if "quick" in Path(pdf_path).name:
            return ParseOutput("fine")
        time.sleep(3600)
        raise AssertionError("unreachable")


class Slow(Echo):
    """Sleeps, logging start and end times, to observe concurrency."""

    name = "slow"

    def parse(self, pdf_path: Path) -> ParseOutput:
        start = time.time()
        time.sleep(0.6)
        with open(self.log, "a") as handle:
            handle.write(f"{start} {time.time()}\n")
        return ParseOutput(Path(pdf_path).stem)


class Binary(Echo):
    name = "binary"

    def parse(self, pdf_path: Path) -> bytes:  # type: ignore[override]
        return bytes(range(256)) * 4000


class NeedsMissing(Echo):
    name = "needs-missing"

    def prepare(self) -> None:
        require("tablebench_no_such_module")


class PrepareHangs(Echo):
    """A parser whose prepare() (a model download that never ends, say) hangs; logs each start."""

    name = "prepare-hangs"

    def prepare(self) -> None:
        with open(self.log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        time.sleep(3600)


def _pdfs(tmp_path: Path, *names: str) -> list[Path]:
    """Files that stand in for PDFs: the fake parsers never read them, the cache hashes them."""
    paths = []
    for name in names:
        path = tmp_path / f"{name}.pdf"
        path.write_bytes(b"%PDF-1.4 " + name.encode())
        paths.append(path)
    return paths


# -- outcomes ---------------------------------------------------------------------------
def test_ok_outcome_carries_text_and_meta(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    result = parse_pdf(Echo("x | y"), pdf, timeout=30)
    assert (result.outcome, result.text, result.message) == ("ok", "x | y", "")
    assert result.meta["format"] == "text" and result.meta["cost"] == 0.0 and result.meta["seconds"] >= 0
    assert (result.parser, result.version, result.config) == ("echo", "1", {"mode": "a"})
    assert result.pdf_sha256 == sha256_file(pdf) and not result.cached


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("exit", "parser process died (exit code 3)"),
        ("segfault", "parser process killed by SIGSEGV"),
        ("raise", "ValueError: bad table on line two"),
    ],
)
def test_crashes_become_error_outcomes_and_the_next_page_still_parses(
    tmp_path: Path, how: str, message: str
) -> None:
    bad, good = _pdfs(tmp_path, "bad", "good")
    with ParseRunner(Crashes(how), timeout=30) as runner:
        first, second = runner.run(bad), runner.run(good)
    assert (first.outcome, first.message, first.text) == ("error", message, "")
    assert (second.outcome, second.text) == ("ok", "fine")


def test_hang_is_killed_at_the_timeout_and_the_runner_recovers(tmp_path: Path) -> None:
    slow, quick = _pdfs(tmp_path, "slow", "quick")
    with ParseRunner(Hangs(), timeout=1.0) as runner:
        started = time.perf_counter()
        hung = runner.run(slow)
        elapsed = time.perf_counter() - started
        fine = runner.run(quick)
    assert hung.outcome == "timeout" and hung.message == "no output within 1 s (parser killed)"
    assert hung.meta["timeout"] == 1.0
    assert elapsed < 10
    assert (fine.outcome, fine.text) == ("ok", "fine")


def test_timeout_kills_what_the_parser_started(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    pidfile = tmp_path / "child.pid"
    spec = f"command:sh -c 'echo $$ > {pidfile}; exec sleep 600' {{pdf}}"
    result = parse_pdf(spec, pdf, timeout=1.5)
    assert result.outcome == "timeout"
    pid = int(pidfile.read_text())
    deadline = time.time() + 5
    while time.time() < deadline:
        status = Path(f"/proc/{pid}/status")
        if not status.exists() or "State:\tZ" in status.read_text():
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"grandchild sleep {pid} survived the timeout kill")


def test_garbage_binary_output_is_an_error(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    result = parse_pdf(Binary(), pdf, timeout=30)
    assert result.outcome == "error" and result.text == ""
    assert result.message.startswith("output looks binary: ")


def test_huge_output_is_capped(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    with ParseRunner(Echo("ab" * 30_000), timeout=30, max_chars=1000) as runner:
        result = runner.run(pdf)
    assert result.outcome == "ok" and len(result.text) == 1000
    assert result.message == "output truncated to 1,000 of 60,000 chars"
    assert result.meta["chars_total"] == 60_000


def test_settle_outcomes() -> None:
    assert settle(ParseOutput("  \n", {"message": "no tables here"})) == ("empty", "", "no tables here", {})
    assert settle("") == ("empty", "", "parser returned no text", {})
    assert settle(42)[0:3] == ("error", "", "parser returned int, not text")
    outcome, text, message, meta = settle("a\x00b\x01c" + "d" * 100)
    assert (outcome, text[:3], meta["control_chars_removed"]) == ("ok", "abc", 2)
    assert settle(b"caf\xc3\xa9")[1] == "café"
    assert settle("lone \ud800 surrogate, kept \ufffd")[1] == "lone  surrogate, kept \ufffd"


def test_a_hanging_prepare_has_the_page_timeout_once_and_later_pages_fail_at_once(tmp_path: Path) -> None:
    """It cost 120 s a page whatever the page timeout, and hung again on every page."""
    log = tmp_path / "prepare.log"
    pdfs = _pdfs(tmp_path, "a", "b", "c")
    with ParseRunner(PrepareHangs(log=str(log)), timeout=1.0) as runner:
        results = [runner.run(pdf) for pdf in pdfs]
    message = "parser did not start: its process and prepare() took longer than 11 s (parser killed)"
    assert [(r.outcome, r.message) for r in results] == [("timeout", message)] * 3
    assert len(log.read_text().splitlines()) == 1  # prepare() ran in one worker, once


def test_missing_dependency_fails_every_page_with_one_line_naming_the_extra(tmp_path: Path) -> None:
    a, b = _pdfs(tmp_path, "a", "b")
    with ParseRunner(NeedsMissing(), timeout=30) as runner:
        results = [runner.run(a), runner.run(b)]
    expected = ("prepare() raised ParserError: tablebench_no_such_module is not installed: "
                "pip install 'tablebench[parsers]'")  # the step that failed, named: each page repeats it
    assert [r.outcome for r in results] == ["error", "error"]
    assert all(r.message.startswith(expected) for r in results)


def test_unpicklable_parser_is_an_error_not_a_crash(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    parser = Echo()
    parser.hook = lambda: None  # type: ignore[attr-defined]
    result = parse_pdf(parser, pdf, timeout=30)
    assert result.outcome == "error" and result.message.startswith("parser cannot be sent to a worker process")


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no such PDF"):
        parse_pdf(Echo(), tmp_path / "absent.pdf")
    with pytest.raises(ValueError, match="timeout must be positive"):
        ParseRunner(Echo(), timeout=0)
    with pytest.raises(ValueError, match="<= 86400"):
        ParseRunner(Echo(), timeout=1e20)  # waits above this overflow: every page was an error


# -- the cache ----------------------------------------------------------------------------
def _count(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_cache_hit_on_second_run_and_miss_on_changed_config_version_or_pdf(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    log, cache = tmp_path / "calls.log", tmp_path / "cache"
    first = parse_pdf(Echo(log=str(log)), pdf, cache)
    second = parse_pdf(Echo(log=str(log)), pdf, cache)
    assert (_count(log), first.cached, second.cached) == (1, False, True)
    assert second == first
    assert not parse_pdf(Echo(log=str(log), mode="b"), pdf, cache).cached
    assert not parse_pdf(Echo(log=str(log), version="2"), pdf, cache).cached
    pdf.write_bytes(b"%PDF-1.4 changed")
    assert not parse_pdf(Echo(log=str(log)), pdf, cache).cached
    assert _count(log) == 4
    files = sorted(p.relative_to(cache).parts[0] for p in cache.rglob("*.json"))
    assert len(files) == 4 and all(f.startswith("echo-") for f in files)


def test_cache_file_is_plain_json_with_the_key_inputs(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    parser = Echo("t")
    parse_pdf(parser, pdf, tmp_path / "cache")
    path = ParseCache(tmp_path / "cache").path(parser, cache_key(parser, sha256_file(pdf)))
    stored = json.loads(path.read_text())
    assert stored["outcome"] == "ok" and stored["text"] == "t" and stored["config"] == {"mode": "a"}
    assert stored["pdf_sha256"] == sha256_file(pdf)
    assert not list(path.parent.glob("*.tmp"))


def test_killed_run_resumes_done_pages_and_redoes_torn_ones(tmp_path: Path) -> None:
    a, b = _pdfs(tmp_path, "a", "b")
    log, cache = tmp_path / "calls.log", tmp_path / "cache"
    parse_pdf(Echo(log=str(log)), a, cache)
    parser = Echo(log=str(log))
    torn = ParseCache(cache).path(parser, cache_key(parser, sha256_file(b)))
    torn.parent.mkdir(parents=True, exist_ok=True)
    torn.write_text('{"outcome": "ok", "te')  # what a non-atomic writer would leave
    (torn.parent / "leftover.tmp").write_text("half")
    with ParseRunner(parser, cache) as runner:
        results = runner.run_many([a, b])
    assert [r.cached for r in results] == [True, False]
    assert log.read_text().split()[1::2] == ["a.pdf", "b.pdf"]
    assert ParseResult.from_json(torn.read_text()).text == "hello | world"


def test_cached_timeout_is_reused_unless_the_limit_grew_and_errors_are_retried(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "slow")
    cache = tmp_path / "cache"
    assert parse_pdf(Hangs(), pdf, cache, timeout=0.5).outcome == "timeout"
    again = parse_pdf(Hangs(), pdf, cache, timeout=0.5)
    assert again.cached and again.outcome == "timeout"  # from the cache: the parser did not run again
    longer = parse_pdf(Hangs(), pdf, cache, timeout=0.8)
    assert not longer.cached and longer.meta["timeout"] == 0.8
    (bad,) = _pdfs(tmp_path, "bad")
    assert parse_pdf(Crashes("raise"), bad, cache).outcome == "error"
    assert not parse_pdf(Crashes("raise"), bad, cache).cached, "an error (rate limit, crash) is tried again"
    with ParseRunner(Hangs(), cache, timeout=0.8, refresh=True) as runner:
        assert not runner.run(pdf).cached, "refresh ignores even a usable cached result"


def test_concurrent_runners_parse_a_page_once(tmp_path: Path) -> None:
    """What two pytest-xdist workers do: the per-key lock makes the second a cache hit."""
    (pdf,) = _pdfs(tmp_path, "a")
    log, cache = tmp_path / "calls.log", tmp_path / "cache"
    results: list[ParseResult] = []
    threads = [threading.Thread(target=lambda: results.append(parse_pdf(Echo(log=str(log)), pdf, cache)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _count(log) == 1 and sorted(r.cached for r in results) == [False, True]


def test_run_many_keeps_order_and_the_concurrency_limit(tmp_path: Path) -> None:
    pdfs = _pdfs(tmp_path, "p1", "p2", "p3", "p4")
    log = tmp_path / "times.log"
    parser = Slow(log=str(log))
    with ParseRunner(parser, timeout=30) as runner:
        results = runner.run_many(pdfs, jobs=2)
    assert [r.text for r in results] == ["p1", "p2", "p3", "p4"]
    spans = [tuple(map(float, line.split())) for line in log.read_text().splitlines()]
    overlap = max(sum(s <= t < e for s, e in spans) for t, _ in spans)
    assert overlap == 2


def test_real_parser_through_the_runner_and_cache(tmp_path: Path, bench_sample_dir: Path) -> None:
    pdf = bench_sample_dir / "pdfs" / "001.pdf"
    with ParseRunner("pypdf", tmp_path / "cache", timeout=60) as runner:
        first = runner.run(pdf)
    with ParseRunner("pypdf", tmp_path / "cache", timeout=60) as runner:
        second = runner.run(pdf)
    assert first.outcome == "ok" and "CC12M-NegCap" in first.text
    assert (first.cached, second.cached, second.text) == (False, True, first.text)
    assert first.parser == "pypdf" and first.version.endswith("+a1")


# -- malformed cache entries (issue 13, item 1) ----------------------------------------------
def _corrupt(path: Path, change) -> None:
    data = json.loads(path.read_text())
    changed = change(data)
    path.write_text(changed if isinstance(changed, str) else json.dumps(changed))


def _with(**fields):
    return lambda data: {**data, **fields}


def _without(key: str):
    return lambda data: {k: v for k, v in data.items() if k != key}


def _meta(**fields):
    return lambda data: {**data, "meta": {**data["meta"], **fields}}


CORRUPTIONS = {
    "meta is a string": _with(meta="zzz"),
    "text is a number": _with(text=123),
    "text is null": _with(text=None),
    "config is a list": _with(config=["mode", "a"]),
    "version is a number": _with(version=1),
    "unknown outcome": _with(outcome="great"),
    "ok without text": _with(text="   "),
    "empty with text": _with(outcome="empty"),
    "control characters": _with(text="a\x00b"),
    "missing text": _without("text"),
    "missing meta": _without("meta"),
    "extra field": _with(cached=True),
    "seconds is a string": _meta(seconds="fast"),
    "seconds is NaN": lambda d: json.dumps(d).replace('"seconds": ', '"seconds": NaN, "x": '),
    "cost is 1e309": lambda d: json.dumps(d).replace('"cost": 0.0', '"cost": 1e309'),
    "negative cost": _meta(cost=-1),
    "no seconds": lambda d: {**d, "meta": {k: v for k, v in d["meta"].items() if k != "seconds"}},
    "another pdf": _with(pdf_sha256="0" * 64),
    "another config": _with(config={"mode": "b"}),
    "a list": lambda d: [d],
    "a string": lambda d: json.dumps("hello | world"),
    "null": lambda d: "null",
    "deeply nested": lambda d: "[" * 100_000 + "]" * 100_000,
    "not UTF-8": lambda d: json.dumps(d).encode().decode("latin-1").replace("hello", "h\udcffllo"),
}


class EchoInProcess(Echo):
    """Echo without a worker process: the cache logic is the same, the test is 10x faster."""

    in_process = True


@pytest.mark.parametrize("change", CORRUPTIONS.values(), ids=CORRUPTIONS.keys())
def test_malformed_cache_entry_is_recomputed_and_overwritten(tmp_path: Path, change) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    log, cache = tmp_path / "calls.log", tmp_path / "cache"
    parser = EchoInProcess(log=str(log))
    parse_pdf(parser, pdf, cache)
    path = ParseCache(cache).path(parser, cache_key(parser, sha256_file(pdf)))
    try:
        _corrupt(path, change)
    except UnicodeEncodeError:  # the lone surrogate: write the raw bytes instead
        path.write_bytes(path.read_bytes().replace(b"hello", b"h\xffllo"))
    again = parse_pdf(parser, pdf, cache)
    assert (again.outcome, again.text, again.cached, _count(log)) == ("ok", "hello | world", False, 2)
    assert ParseResult.from_json(path.read_text()) == again, "the bad entry is overwritten"
    assert parse_pdf(parser, pdf, cache).cached and _count(log) == 2


def test_from_json_names_what_is_wrong_in_one_line() -> None:
    with pytest.raises(ValueError, match=r"^not a parse result: meta is a str, not a dict$"):
        ParseResult.from_json(json.dumps({**dict.fromkeys(["outcome", "text", "message", "parser", "version",
                                                           "pdf_sha256"], "x"), "meta": "zzz", "config": {}}))


# -- the parser's own code keys the cache (issue 13, item 5) ---------------------------------
def test_command_script_edit_reparses_and_unchanged_script_is_a_hit(tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    cache = tmp_path / "cache"
    script = tmp_path / "my_parser.py"
    script.write_text("print('| old | one |')\n")
    spec = f"command:{sys.executable} {script} {{pdf}}"
    first = parse_pdf(spec, pdf, cache, timeout=30)
    assert (first.text, first.cached) == ("| old | one |\n", False)
    assert parse_pdf(spec, pdf, cache, timeout=30).cached
    stat = script.stat()
    script.write_text("print('| new | two |')\n")  # same size, same mtime: only the bytes differ
    os.utime(script, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = parse_pdf(spec, pdf, cache, timeout=30)
    assert (changed.text, changed.cached) == ("| new | two |\n", False)
    assert parse_pdf(spec, pdf, cache, timeout=30).cached


def test_command_keys_on_files_named_anywhere_in_the_command_line(tmp_path: Path) -> None:
    from tablebench.parse.command import CommandParser
    from tablebench.parse.command_line import named_files

    script, model = tmp_path / "run.py", tmp_path / "weights.bin"
    script.write_text("pass\n")
    model.write_bytes(b"\x00" * 10)
    argv = ["sh", "-c", f"python3 {script} --quiet \"$0\"", "{pdf}", f"--model={model}", "{out}", "/no/such/file"]
    found = named_files(argv)
    assert script in found and model in found and Path(shutil.which("sh")).resolve() in found
    assert all("{" not in str(p) for p in found)
    before = CommandParser(f"sh -c 'python3 {script} \"$0\"' {{pdf}} --model={model}").version
    model.write_bytes(b"\x01" * 10)
    assert CommandParser(f"sh -c 'python3 {script} \"$0\"' {{pdf}} --model={model}").version != before


def test_importable_parser_code_edit_reparses_without_a_version_bump(tmp_path: Path, monkeypatch) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    cache, src = tmp_path / "cache", tmp_path / "src"
    src.mkdir()
    module = src / "tb_edit_me.py"
    body = ("from tablebench.parse.protocol import ParseOutput\n\nclass P:\n    name, version = 'edit-me', '1'\n\n"
            "    def parse(self, pdf_path):\n        return ParseOutput({!r})\n")
    module.write_text(body.format("| first |"))
    monkeypatch.syspath_prepend(str(src))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    import importlib

    mod = importlib.import_module("tb_edit_me")
    assert parse_pdf(mod.P(), pdf, cache, timeout=30).text == "| first |"
    assert parse_pdf(mod.P(), pdf, cache, timeout=30).cached
    module.write_text(body.format("| second, edited |"))
    mod = importlib.reload(mod)
    again = parse_pdf(mod.P(), pdf, cache, timeout=30)
    assert (again.text, again.cached, again.version) == ("| second, edited |", False, "1")
    monkeypatch.delitem(sys.modules, "tb_edit_me")


def test_a_builtin_parser_is_keyed_by_the_code_of_tablebench_itself() -> None:
    from tablebench.parse import fingerprint
    from tablebench.parsers.pdfplumber_parser import PdfplumberParser

    identity = fingerprint.parser_identity(PdfplumberParser())
    assert identity.stamp
    # a checkout (editable install): the folders of the package; a wheel: the installed distribution
    assert "the installed distribution tablebench " in identity.covers or (
        str(Path(fingerprint.__file__).parents[1]) in identity.covers and "parsers" in identity.covers)
    assert fingerprint.parser_identity(Echo()).stamp  # a class of a test module: its folder


# -- ParseResult.cached on every path (issue 13, item 5: "N of M pages from the cache") ------
def test_cached_flag_on_hit_miss_refresh_error_retry_and_uncached(tmp_path: Path) -> None:
    good, bad = _pdfs(tmp_path, "good", "bad")
    cache = tmp_path / "cache"
    with ParseRunner(Crashes("raise"), cache, timeout=30) as runner:
        flags = [runner.run(good).cached, runner.run(good).cached, runner.run(bad).cached, runner.run(bad).cached]
    assert flags == [False, True, False, False], "miss, hit, error, error retried"
    with ParseRunner(Crashes("raise"), cache, timeout=30, refresh=True) as runner:
        assert not runner.run(good).cached, "refresh"
    with ParseRunner(Crashes("raise"), cache, timeout=30) as runner:
        assert runner.run(good).cached, "the refreshed result is stored"
    with ParseRunner(Crashes("raise"), None, timeout=30) as runner:
        assert not runner.run(good).cached, "no cache"
    assert not parse_pdf(f"dir:{tmp_path}", good, cache).cached, "dir: is never cached"


def test_run_puts_the_cached_flag_into_each_table_result(tmp_path: Path) -> None:
    from tablebench.cases import load_case_set
    from tablebench.evaluate.page import evaluate_page
    from tablebench.parse.prefetch import ParsePool
    from tests.test_run import copy_pages

    page = load_case_set(copy_pages(tmp_path / "bench", ("002",))).pages[0]
    script = tmp_path / "tool.py"
    script.write_text("print('| a | b |')\nprint('|---|---|')\nprint('| 1 | 2 |')\n")
    spec = f"command:{sys.executable} {script} {{pdf}}"
    flags = []
    for refresh in (False, False, True):
        pool = ParsePool()
        try:
            results = evaluate_page(page, spec, ["teds"], cache_dir=tmp_path / "cache", pool=pool, refresh=refresh)
        finally:
            pool.close()
        flags.append({r.parse_cached for r in results})
    assert flags == [{False}, {True}, {False}]


# -- no leftovers in the temp folder (issue 13, item 11) -------------------------------------
@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch) -> Path:
    """A temp folder of the test's own, for this process and the workers it starts."""
    folder = tmp_path / "systmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def _leftovers(folder: Path) -> list[str]:
    for _ in range(100):
        try:
            return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
        except FileNotFoundError:  # a folder removed while it was listed (a cleaner at work): list again
            time.sleep(0.05)
    raise AssertionError(f"{folder} kept changing while listed")


@pytest.mark.parametrize(("command", "outcome"), [
    ("sh -c 'head -c 100000 /dev/zero > {out}; exec sleep 60' {pdf} {out}", "timeout"),
    ("sh -c 'echo partial > {out}; kill -9 $PPID; sleep 5' {pdf} {out}", "error"),
    ("sh -c 'echo bad >&2; exit 2' {pdf}", "error"),
    ("sh -c 'echo \"| a |\"' {pdf}", "ok"),
])
def test_command_pages_leave_nothing_in_the_temp_folder(private_tmp: Path, tmp_path: Path, command: str,
                                                        outcome: str) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    with ParseRunner(f"command:{command}", timeout=1.5) as runner:
        result = runner.run(pdf)
        assert result.outcome == outcome, result.message
        assert not [p for p in _leftovers(private_tmp) if "tablebench-command-" in p]
    assert _leftovers(private_tmp) == []


def test_ctrl_c_mid_page_kills_the_worker_and_its_files(private_tmp: Path, tmp_path: Path) -> None:
    (pdf,) = _pdfs(tmp_path, "a")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with ParseRunner("command:sh -c 'echo x > {out}; exec sleep 60' {pdf} {out}", timeout=30) as runner:
            signal.setitimer(signal.ITIMER_REAL, 1.5)
            with pytest.raises(KeyboardInterrupt):
                runner.run(pdf)
            assert _leftovers(private_tmp) == []
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def test_killed_run_leaves_nothing_in_the_temp_folder(private_tmp: Path, tmp_path: Path) -> None:
    """kill -9 of the benchmark process: the orphaned worker cleans up before it dies."""
    (pdf,) = _pdfs(tmp_path, "a")
    code = ("import sys; from tablebench.parse.runner import ParseRunner\n"
            "ParseRunner(\"command:sh -c 'echo x > {out}; exec sleep 60' {pdf} {out}\", timeout=60).run(sys.argv[1])")
    proc = subprocess.Popen([sys.executable, "-c", code, str(pdf)], cwd=Path(__file__).resolve().parents[1])
    try:
        deadline = time.time() + 30
        while not [p for p in _leftovers(private_tmp) if "tablebench-command-" in p]:
            assert time.time() < deadline and proc.poll() is None, "the command never started"
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.time() + 15
    while _leftovers(private_tmp) and time.time() < deadline:
        time.sleep(0.2)
    assert _leftovers(private_tmp) == []


# -- meta that would poison totals (issue 13, item 4) ----------------------------------------
class OddMeta(Echo):
    name = "odd-meta"

    def __init__(self, meta: dict) -> None:
        super().__init__()
        self.meta = meta

    def parse(self, pdf_path: Path) -> ParseOutput:
        return ParseOutput("| a |", dict(self.meta))


@pytest.mark.parametrize(("meta", "message"), [
    ({"cost": float("nan")}, "parser meta cost must be a finite number >= 0, got nan"),
    ({"seconds": float("inf")}, "parser meta seconds must be a finite number >= 0, got inf"),
    ({"cost": -0.5}, "parser meta cost must be a finite number >= 0, got -0.5"),
    ({"seconds": "3"}, "parser meta seconds must be a number, got '3'"),
])
def test_non_finite_or_negative_seconds_or_cost_is_a_one_line_error(tmp_path: Path, meta, message) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    result = parse_pdf(OddMeta(meta), pdf, tmp_path / "cache", timeout=30)
    assert (result.outcome, result.message) == ("error", message)


def test_meta_json_cannot_hold_is_dropped_and_named(tmp_path: Path) -> None:
    import datetime

    (pdf,) = _pdfs(tmp_path, "a")
    meta = {"when": datetime.date(2026, 1, 2), "score": float("nan"), "pages": (1, 2), "seconds": 2, "cost": 0.25}
    result = parse_pdf(OddMeta(meta), pdf, tmp_path / "cache", timeout=30)
    assert result.outcome == "ok"
    assert {k: result.meta[k] for k in ("when", "pages", "meta_dropped", "seconds", "cost")} == {
        "when": "2026-01-02", "pages": [1, 2], "meta_dropped": ["score"], "seconds": 2.0, "cost": 0.25}
    assert parse_pdf(OddMeta(meta), pdf, tmp_path / "cache", timeout=30).cached


def test_one_line_is_defined_once() -> None:
    import re as re_

    repo = Path(__file__).resolve().parents[1]
    defs = [f"{p.relative_to(repo)}:{m.group(0)}" for folder in ("harness", "parsers") for p in (repo / folder).rglob("*.py")
            for m in re_.finditer(r"^def _?(one_line|first_line)\b", p.read_text(encoding="utf-8"), re_.M)]
    assert defs == ["harness/core/messages.py:def one_line"]


def test_no_usable_temp_folder_is_an_error_outcome_not_a_crash(tmp_path: Path, monkeypatch) -> None:
    (pdf,) = _pdfs(tmp_path, "a")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    result = parse_pdf(Echo(), pdf, timeout=30)
    assert result.outcome == "error" and result.message.startswith("cannot create a temp folder for the parser: ")


class BigMeta(Echo):
    """A parser whose meta holds a 30 MB value and 200,000 small keys besides what it should."""

    def parse(self, pdf_path: Path) -> ParseOutput:
        meta = {"format": "markdown", "notes": "x" * 30_000_000, "cost": 0.5}
        meta.update({f"k{i}": i for i in range(200_000)})
        return ParseOutput(self.text, meta)


def test_a_huge_meta_is_cut_to_a_bound_and_never_cached_whole(tmp_path: Path) -> None:
    from tablebench.parse.result import MAX_META_CHARS

    (pdf,) = _pdfs(tmp_path, "a")
    result = parse_pdf(BigMeta(), pdf, tmp_path / "cache", timeout=60)
    assert result.outcome == "ok" and (result.meta["format"], result.meta["cost"]) == ("markdown", 0.5)
    assert "notes" not in result.meta and len(json.dumps(result.meta)) <= MAX_META_CHARS + 4_000
    assert result.meta["meta_dropped"][0] == "notes" and len(result.meta["meta_dropped"]) <= 20
    assert result.meta["meta_dropped_count"] > 190_000
    entries = [p for p in (tmp_path / "cache").rglob("*.json")]
    assert entries and max(p.stat().st_size for p in entries) < 2 * MAX_META_CHARS
