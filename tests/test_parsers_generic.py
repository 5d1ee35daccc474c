"""command:, dir: and vlm: parsers — vlm against a tiny OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tablebench.parse import ParserError, resolve
from tablebench.parse.runner import ParseRunner, parse_pdf
from tablebench.parse.vlm import strip_fences


@pytest.fixture
def pdf(tmp_path: Path, bench_sample_dir: Path) -> Path:
    """A real one-page PDF (copied so its name is ours)."""
    target = tmp_path / "page7.pdf"
    shutil.copy(bench_sample_dir / "pdfs" / "001.pdf", target)
    return target


# -- command: -----------------------------------------------------------------------------
def test_command_stdout_is_the_output(pdf: Path) -> None:
    out = resolve("command:sh -c 'echo \"| a | b |\"; echo \"$0\"' {pdf}").parse(pdf)
    table, given = out.text.splitlines()
    assert table == "| a | b |" and out.meta["bytes"] == len(out.text)
    assert Path(given).name == pdf.name and Path(given).parent != pdf.parent, "{pdf}: a copy in a folder of its own"


def test_command_out_placeholder_file_is_the_output(pdf: Path) -> None:
    out = resolve("command:cp {pdf} {out}").parse(pdf)
    assert out.text.startswith("%PDF-") and out.meta["bytes"] == pdf.stat().st_size


def test_command_failures_are_one_line_errors(pdf: Path) -> None:
    with pytest.raises(ParserError, match=r"^sh exited with code 1: boom$"):
        resolve("command:sh -c 'echo noise >&2; echo boom >&2; exit 1' {pdf}").parse(pdf)
    with pytest.raises(ParserError, match=r"^cannot run 'tablebench-no-such-tool': No such file"):
        resolve("command:tablebench-no-such-tool {pdf}").parse(pdf)
    with pytest.raises(ParserError, match=r"wrote no \{out\} file"):
        resolve("command:true {pdf} {out}").parse(pdf)


def test_command_outcomes_through_the_runner(pdf: Path) -> None:
    failed = parse_pdf("command:sh -c 'exit 1' {pdf}", pdf, timeout=30)
    assert (failed.outcome, failed.message) == ("error", "ParserError: sh exited with code 1")
    silent = parse_pdf("command:true {pdf}", pdf, timeout=30)
    assert (silent.outcome, silent.message) == ("empty", "true wrote nothing")
    garbage = parse_pdf("command:head -c 300000 /dev/urandom {pdf}", pdf, timeout=30)
    assert garbage.outcome == "error" and garbage.message.startswith("output looks binary")


# -- dir: ---------------------------------------------------------------------------------
def test_dir_reads_the_page_file_and_its_meta(tmp_path: Path, pdf: Path) -> None:
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "page7.html").write_text("<table><tr><td>1</td></tr></table>")
    (outputs / "page7.md").write_text("| 1 |\n|---|\n")
    (outputs / "page7.meta.json").write_text('{"seconds": 3.5, "cost": 0.002}')
    out = resolve(f"dir:{outputs}").parse(pdf)
    assert out.text == "| 1 |\n|---|\n"
    assert out.meta == {"format": "markdown", "file": "page7.md", "ignored": ["page7.html"],
                        "seconds": 3.5, "cost": 0.002, "message": "page7.md is empty"}


def test_dir_missing_file_is_empty_with_a_message(tmp_path: Path, pdf: Path) -> None:
    result = parse_pdf(f"dir:{tmp_path}", pdf, tmp_path / "cache")
    assert result.outcome == "empty"
    assert result.message == f"no page7{{.md|.html|.txt|.tex}} in {tmp_path.resolve()}"
    assert not (tmp_path / "cache").exists()  # reading a file is cheaper than caching it


def test_dir_bad_meta_is_an_error(tmp_path: Path, pdf: Path) -> None:
    (tmp_path / "page7.txt").write_text("text")
    (tmp_path / "page7.meta.json").write_text("[1, 2]")
    result = parse_pdf(f"dir:{tmp_path}", pdf)
    assert result.outcome == "error" and result.message.startswith("ParserError: page7.meta.json: not a JSON object")


@pytest.mark.parametrize(("sidecar", "says"), [
    ('{"seconds": 1e309}', "seconds must be a finite number >= 0, got inf"),
    ('{"seconds": 2, "cost": NaN}', "cost must be a finite number >= 0, got nan"),
    ('{"cost": Infinity}', "cost must be a finite number >= 0, got inf"),
    ('{"seconds": -3}', "seconds must be a finite number >= 0, got -3"),
    ('{"cost": "0.1"}', "cost must be a number, got '0.1'"),
    ('{"seconds": true}', "seconds must be a number, got True"),
    ('{"seconds": [1]}', "seconds must be a number, got [1]"),
    ('{"seconds": 1', "page7.meta.json: not a JSON object with numeric seconds/cost (Expecting"),
])
def test_dir_sidecar_with_unusable_seconds_or_cost_fails_its_page_in_one_line(tmp_path: Path, pdf: Path,
                                                                             sidecar: str, says: str) -> None:
    (tmp_path / "page7.md").write_text("| 1 |\n|---|\n")
    (tmp_path / "page7.meta.json").write_text(sidecar)
    result = parse_pdf(f"dir:{tmp_path}", pdf)
    assert result.outcome == "error" and says in result.message and "\n" not in result.message
    assert result.message.startswith("ParserError: page7.meta.json: ")


def test_dir_sidecar_zero_and_integers_are_fine(tmp_path: Path, pdf: Path) -> None:
    (tmp_path / "page7.md").write_text("| 1 |\n|---|\n")
    (tmp_path / "page7.meta.json").write_text('{"seconds": 4, "cost": 0, "model": "remote-x"}')
    result = parse_pdf(f"dir:{tmp_path}", pdf)
    assert result.outcome == "ok" and (result.meta["seconds"], result.meta["cost"]) == (4.0, 0.0)


@pytest.mark.parametrize(("target", "says"), [
    ("/etc/passwd", "a symlink out of the folder"),
    ("/proc/self/environ", "a symlink out of the folder"),
    ("/dev/zero", "a symlink out of the folder"),
    ("fifo", "not a regular file"),
    ("../elsewhere.md", "a symlink out of the folder"),
])
def test_dir_reads_only_regular_files_inside_its_folder(tmp_path: Path, pdf: Path, target: str, says: str) -> None:
    import os

    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (tmp_path / "elsewhere.md").write_text("| secret | 1 |\n|---|---|\n")
    if target == "fifo":
        os.mkfifo(outputs / "page7.md")  # a read would wait for a writer forever
    else:
        (outputs / "page7.md").symlink_to(target)
    (outputs / "page7.txt").write_text("plain text")  # never read instead: the page's output is refused
    result = parse_pdf(f"dir:{outputs}", pdf)
    assert (result.outcome, result.message) == ("error", f"ParserError: page7.md: {says} (dir: reads regular files "
                                                         f"inside {outputs.resolve()})")
    assert result.text == ""


def test_dir_follows_a_symlink_that_stays_in_its_folder_and_refuses_a_sidecar_that_leaves(tmp_path: Path,
                                                                                         pdf: Path) -> None:
    outputs = tmp_path / "outputs"
    (outputs / "runs").mkdir(parents=True)
    (outputs / "runs" / "a.md").write_text("| 1 |\n|---|\n")
    (outputs / "page7.md").symlink_to("runs/a.md")
    assert parse_pdf(f"dir:{outputs}", pdf).text == "| 1 |\n|---|\n"
    (tmp_path / "meta.json").write_text('{"seconds": 1}')
    (outputs / "page7.meta.json").symlink_to(tmp_path / "meta.json")
    result = parse_pdf(f"dir:{outputs}", pdf)
    assert result.outcome == "error" and "page7.meta.json: a symlink out of the folder" in result.message


# -- vlm: against a local OpenAI-compatible server ------------------------------------------
class FakeModel(BaseHTTPRequestHandler):
    """/v1/chat/completions answering from the server's `script`: a list of (status, content)."""

    def do_POST(self) -> None:  # noqa: N802 — http.server's name
        server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with server.lock:
            server.requests.append((self.path, body))
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
            status, content = server.script.pop(0) if len(server.script) > 1 else server.script[0]
        time.sleep(server.delay)
        if status == 200:
            payload = {"id": "c1", "object": "chat.completion", "created": 0, "model": body["model"],
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}}
        else:
            payload = {"error": {"message": content, "type": "server_error"}}
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        with server.lock:
            server.in_flight -= 1

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeModel)
    server.lock, server.requests, server.script = threading.Lock(), [], [(200, "ok")]
    server.in_flight = server.max_in_flight = 0
    server.delay = 0.0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _vlm(server: ThreadingHTTPServer, **options: str) -> str:
    query = "&".join(f"{k}={v}" for k, v in {"api_base": f"http://127.0.0.1:{server.server_port}/v1", **options}.items())
    return f"vlm:openai/tiny-vlm?{query}"


def test_vlm_sends_the_page_image_and_returns_unfenced_markdown(model_server, pdf: Path) -> None:
    model_server.script = [(200, "```markdown\n# Title\n<table><tr><td>1</td></tr></table>\n```")]
    out = resolve(_vlm(model_server, dpi="50")).parse(pdf)
    assert out.text == "# Title\n<table><tr><td>1</td></tr></table>"
    assert (out.meta["attempts"], out.meta["prompt_tokens"], out.meta["completion_tokens"]) == (1, 120, 30)
    assert out.meta["cost"] == 0.0  # a model litellm has no price for
    path, body = model_server.requests[0]
    assert path == "/v1/chat/completions" and body["model"] == "tiny-vlm" and body["temperature"] == 0
    text, image = body["messages"][0]["content"]
    assert "every table as an HTML <table>" in text["text"]
    assert image["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


def test_vlm_retries_transient_errors_a_bounded_number_of_times(model_server, pdf: Path) -> None:
    model_server.script = [(503, "busy"), (500, "oops"), (200, "done")]
    out = resolve(_vlm(model_server, dpi="50", retries="2")).parse(pdf)
    assert (out.text, out.meta["attempts"], len(model_server.requests)) == ("done", 3, 3)
    model_server.requests.clear()
    model_server.script = [(503, "busy")]
    with pytest.raises(ParserError, match=r"ServiceUnavailableError after 2 attempts"):
        resolve(_vlm(model_server, dpi="50", retries="1")).parse(pdf)
    assert len(model_server.requests) == 2


def test_vlm_does_not_retry_a_client_error(model_server, pdf: Path) -> None:
    model_server.script = [(400, "bad image"), (200, "never")]
    with pytest.raises(Exception, match="bad image"):
        resolve(_vlm(model_server, dpi="50", retries="3")).parse(pdf)
    assert len(model_server.requests) == 1


def test_vlm_through_the_runner_respects_the_concurrency_limit(model_server, tmp_path: Path, pdf: Path) -> None:
    model_server.script, model_server.delay = [(200, "| a |\n|---|")], 1.0
    pages = [shutil.copy(pdf, tmp_path / f"p{i}.pdf") for i in range(4)]  # same bytes: no cache
    with ParseRunner(_vlm(model_server, dpi="40", concurrency="2"), timeout=60) as runner:
        results = runner.run_many(pages)
    assert [r.outcome for r in results] == ["ok"] * 4
    assert model_server.max_in_flight == 2 and len(model_server.requests) == 4
    assert results[0].parser == "vlm:openai/tiny-vlm" and results[0].meta["attempts"] == 1


def test_strip_fences_leaves_plain_text_alone() -> None:
    assert strip_fences("```\n| a |\n```") == "| a |"
    assert strip_fences("a ``` b") == "a ``` b"


def test_command_version_changes_when_its_program_is_rebuilt(tmp_path) -> None:
    """A rebuilt parser must not be served the old parser's cached outputs."""
    import os

    from tablebench.parse.command import CommandParser

    tool = tmp_path / "my-parser"
    tool.write_text("#!/bin/sh\necho one\n")
    tool.chmod(0o755)
    before = CommandParser(f"{tool} {{pdf}}").version
    tool.write_text("#!/bin/sh\necho two, rebuilt\n")
    os.utime(tool, (1_000_000_000, 1_000_000_000))
    assert CommandParser(f"{tool} {{pdf}}").version != before
    assert CommandParser("no-such-program-here {pdf}").version.endswith("+missing")
