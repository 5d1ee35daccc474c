"""harness.parse: isolation (crash, segfault, hang, garbage), outcomes, the on-disk cache."""

from __future__ import annotations

import ctypes
import json
import os
import threading
import time
from pathlib import Path

import pytest

from harness.parse import (
    ParseCache,
    ParseResult,
    ParseRunner,
    cache_key,
    parse_pdf,
    settle,
    sha256_file,
)
from parsers.base import ParseOutput, require


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


def test_missing_dependency_fails_every_page_with_one_line_naming_the_extra(tmp_path: Path) -> None:
    a, b = _pdfs(tmp_path, "a", "b")
    with ParseRunner(NeedsMissing(), timeout=30) as runner:
        results = [runner.run(a), runner.run(b)]
    expected = "ParserError: tablebench_no_such_module is not installed: pip install 'tablebench[parsers]'"
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
    started = time.perf_counter()
    again = parse_pdf(Hangs(), pdf, cache, timeout=0.5)
    assert again.cached and again.outcome == "timeout" and time.perf_counter() - started < 0.5
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
