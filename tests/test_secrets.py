"""No stored message holds a secret (issue 20, item 13): a provider that echoes the API key in its
401 answer, through the real plugin, litellm and a loopback OpenAI-compatible server."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tablebench.core.messages import REDACTED, one_line, redact
from tests.ci_cases import case_set
from tests.llm_server import LLMServer, Reply
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]

KEY = "test-provider-key-4f9a2c7e1b"


def test_secrets_of_the_environment_and_key_shapes_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOMEPROVIDER_API_KEY", KEY)
    monkeypatch.setenv("FEATURE_KEY_ENABLED", "1")  # too short to be a secret: "1" stays everywhere
    text = f"401 Incorrect API key provided: {KEY}; Authorization: Bearer abcdefghijklmnop1234; sk-{'x' * 24} 1"
    assert redact(text) == f"401 Incorrect API key provided: {REDACTED}; Authorization: {REDACTED}; {REDACTED} 1"
    assert KEY not in one_line(RuntimeError(f"failed\n{KEY}"))


def test_an_echoed_key_reaches_no_file(pytester: pytest.Pytester, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    echo = Reply(401, f"Incorrect API key provided: {KEY}. You can find your API key at the dashboard.")
    with LLMServer([echo]) as server:
        spec = "vlm:openai/tiny-vlm?dpi=30&retries=0&timeout=60"
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=vlm={spec}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist",
                                            f"--parse-cache={tmp_path / 'cache'}", f"--llm-api-base={server.api_base}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the parser reached the server"
    stored = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".json", ".html", ".md", ".xml", ".txt")]
    assert any(p.name == "results.json" for p in stored) and any(p.name == "junit.xml" for p in stored)
    leaked = [str(p.relative_to(tmp_path)) for p in stored if KEY in p.read_text(encoding="utf-8", errors="replace")]
    assert not leaked, leaked
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "Incorrect API key provided" in (tmp_path / "r" / "results.json").read_text(encoding="utf-8")


def stored_files(root: Path) -> list[Path]:
    """Every file a run wrote under `root` that a person or a tool could read later."""
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()
            and p.suffix in (".json", ".jsonl", ".html", ".md", ".xml", ".txt", ".pkl", ".db", "")]


def leaks(root: Path, secret: str) -> list[str]:
    return [str(p.relative_to(root)) for p in stored_files(root)
            if secret.encode() in p.read_bytes()]


def test_a_dir_output_that_links_to_the_environment_reads_nothing(pytester: pytest.Pytester, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_PASSWORD", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    (outputs / "001.txt").symlink_to("/proc/self/environ")
    (outputs / "002.md").symlink_to("/etc/passwd")
    run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{outputs}",
                                        "--metrics=teds", "-p", "no:cacheprovider", "-p", "no:xdist",
                                        f"--parse-cache={tmp_path / 'cache'}", f"--junitxml={tmp_path / 'junit.xml'}",
                                        f"--report-dir={tmp_path / 'r'}", timeout=300)
    assert run.ret == 1
    results = (tmp_path / "r" / "results.json").read_text(encoding="utf-8")
    assert "001.txt: a symlink out of the folder" in results and "002.md: a symlink out of the folder" in results
    assert not leaks(tmp_path, KEY) and "root:x:0:0" not in results + run.stdout.str()
    assert KEY not in run.stdout.str() + run.stderr.str()


def test_a_key_in_a_variable_of_any_name_named_by_api_key_env_reaches_no_file(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_CREDS", KEY)  # named like nothing secret: only api_key_env says it is
    cases = case_set(tmp_path / "cases" / "mini", 2)
    echo = Reply(401, f"Incorrect API key provided: {KEY}. You can find your API key at the dashboard.")
    with LLMServer([echo]) as server:
        spec = f"vlm:openai/tiny-vlm?dpi=30&retries=0&timeout=60&api_base={server.api_base}&api_key_env=ACME_CREDS"
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=vlm={spec}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-n", "2",
                                            f"--parse-cache={tmp_path / 'cache'}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the parser reached the server"
    assert any(p.name == "results.jsonl" for p in stored_files(tmp_path)), "the run wrote its files"
    assert any(p.parent != tmp_path / "r" for p in stored_files(tmp_path / "cache")), "and its parse cache"
    assert not leaks(tmp_path, KEY)
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "Incorrect API key provided: [redacted]" in (tmp_path / "r" / "results.json").read_text(encoding="utf-8")


def test_a_key_echoed_in_a_successful_judge_answer_reaches_no_file(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.ci_cases import write_pages

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    out = write_pages(tmp_path / "out", cases)
    echo = Reply(content=json.dumps({"errors": [f"the request carried the key {KEY} in its header"], "score": 6}))
    with LLMServer([echo]) as server:
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist",
                                            "--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}",
                                            f"--parse-cache={tmp_path / 'cache'}",
                                            f"--junitxml={tmp_path / 'junit.xml'}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert server.requests, "the judge was asked"
    assert run.ret == 0, run.stdout.str()
    assert not list((tmp_path / "cache" / "judge").rglob("*.json")), "an answer that held the key is not cached"
    assert not leaks(tmp_path, KEY)
    assert KEY not in run.stdout.str() + run.stderr.str()
    assert "the request carried the key [redacted] in its header" in \
        (tmp_path / "r" / "results.json").read_text(encoding="utf-8")


def test_a_judge_told_to_read_a_variable_of_any_name_caches_no_echo_of_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from tablebench.metrics.judge import judge_table

    monkeypatch.setenv("ACME_JUDGE_CREDS", KEY)
    echo = Reply(content=json.dumps({"errors": [f"key {KEY} seen"], "score": 4}))
    with LLMServer([echo]) as server:
        verdict = judge_table("\\begin{tabular}{l}a\\\\\\end{tabular}", "| a |", "openai/tiny-judge",
                              api_base=server.api_base, api_key_env="ACME_JUDGE_CREDS", cache_dir=tmp_path / "judge")
        assert server.requests[0][1].get("Authorization", "").endswith(KEY), "the variable was read"
    assert verdict.errors == ["key [redacted] seen"] and not leaks(tmp_path, KEY)


# -- a secret in any encoding (issue 46, findings 3 and 7) -----------------------------------------
def _escaped(secret: str) -> str:
    r"""`secret` as JSON writes it with every character escaped: \u0074\u0065..."""
    return "".join(f"\\u{ord(ch):04x}" for ch in secret)


def decoded_views(path: Path) -> list[str]:
    """A stored file's text and what decoding it gives back: the gzip chunks of report.html's card
    data, JSON's \\u escapes, percent-encoding and HTML entities, each of every one of these."""
    import gzip
    import html
    import re
    import urllib.parse

    from tablebench.report.html_data import unpack

    raw = path.read_bytes().decode("utf-8", errors="replace")
    views = [raw]
    for blob in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", raw):  # report.html packs its cards: gzip, then base64
        try:
            views.append(unpack(blob))
        except (ValueError, OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError):
            pass
    unescape = re.compile(r"\\u([0-9a-fA-F]{4})")
    return views + [form for view in views for form in (unescape.sub(lambda m: chr(int(m.group(1), 16)), view),
                                                          urllib.parse.unquote(view), html.unescape(view))]


def canary_leaks(root: Path, secret: str) -> list[str]:
    """The files under `root` holding `secret` raw or in any encoding these tests decode (base64 too)."""
    import base64

    forms = [base64.b64encode(b"\0" * lead + secret.encode()).decode()[4:-4] for lead in range(3)]  # inner groups
    return [str(p.relative_to(root)) for p in stored_files(root)
            if any(secret in view for view in decoded_views(p))
            or any(form in p.read_bytes().decode("utf-8", errors="replace") for form in forms)]


def test_redact_finds_a_secret_escaped_percent_encoded_as_entities_or_in_base64(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import base64
    import urllib.parse

    from tablebench.core.messages import holds_secret, redact_data

    monkeypatch.setenv("SOMEPROVIDER_API_KEY", KEY)
    forms = [_escaped(KEY), _escaped(KEY).upper().replace("\\U", "\\u"), KEY[:5] + _escaped(KEY[5:]),
             "".join(f"%{b:02X}" for b in KEY.encode()), urllib.parse.quote(KEY, safe=""),
             "".join(f"&#{ord(ch)};" for ch in KEY), "".join(f"&#x{ord(ch):x};" for ch in KEY),
             "".join(f"\\x{ord(ch):02x}" for ch in KEY), "".join(f"\\{ord(ch):o}" for ch in KEY)]
    for form in forms:
        assert redact(f'{{"errors": ["key {form} seen"]}}') == f'{{"errors": ["key {REDACTED} seen"]}}', form
    for lead in (b"", b"u:", b"us:"):  # an Authorization: Basic header, at every byte alignment
        encoded = base64.b64encode(lead + KEY.encode()).decode()
        assert holds_secret(encoded) and KEY not in redact(encoded), encoded
        assert base64.b64encode(KEY.encode()).decode()[4:-8] not in redact(encoded)
    assert redact_data({"errors": [KEY, {KEY: "x"}], "score": 3}) == (
        {"errors": [REDACTED, {REDACTED: "x"}], "score": 3}, True)
    assert redact_data({"errors": ["fine"], "score": 3}) == ({"errors": ["fine"], "score": 3}, False)
    assert redact("100% of 5 & 6 \\n") == "100% of 5 & 6 \\n"  # escape marks alone are not secrets


def test_a_key_the_judge_echoes_escaped_is_never_cached_nor_written_by_a_later_run(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 3: the judge echoes the bearer token it was sent, \\u-escaped inside its JSON; a second
    run without the key in its environment reads the judge cache and writes what it finds."""
    from tests.ci_cases import write_pages

    cases = case_set(tmp_path / "cases" / "mini", 2)
    out = write_pages(tmp_path / "out", cases)
    server: LLMServer

    def echo(body: dict) -> Reply:
        token = server.requests[-1][1].get("Authorization", "").removeprefix("Bearer ")
        return Reply(content='{"errors": ["the header held ' + _escaped(token) + '"], "score": 6}')

    def run(report: str) -> pytest.RunResult:
        return pytester.runpytest_subprocess(
            *PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds", "-p", "no:cacheprovider",
            "-p", "no:xdist", "--judge=openai/tiny-judge", f"--llm-api-base={server.api_base}",
            f"--parse-cache={tmp_path / 'cache'}", f"--junitxml={tmp_path / (report + '.xml')}",
            f"--report-dir={tmp_path / report}", timeout=300)

    with LLMServer(echo) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        first = run("r1")
        asked = len(server.requests)
        monkeypatch.delenv("OPENAI_API_KEY")
        second = run("r2")
    assert {p.name for p in stored_files(tmp_path / "r2")} >= {"results.json", "results.jsonl", "report.html"}
    assert not canary_leaks(tmp_path, KEY)
    assert all(KEY not in r.stdout.str() + r.stderr.str() for r in (first, second))
    assert first.ret == second.ret == 0, first.stdout.str() + second.stdout.str()
    assert asked and len(server.requests) == 2 * asked, "nothing the first run was told was served from the cache"
    assert server.requests[-1][1]["Authorization"] == "Bearer unused", "the second run had no key"
    assert "the header held [redacted]" in (tmp_path / "r1" / "results.json").read_text(encoding="utf-8")


ENV_PARSER = '''
import os
import sys
import urllib.parse

from tablebench.parse.protocol import ParseOutput


class KeyInMeta:
    """Keeps the key in its meta (a value, a name, deep down) and a URL holding it in its text, and
    prints it, to stdout and stderr and from a program it runs."""
    name, version = "key-in-meta", "1"

    def parse(self, pdf):
        key = os.environ["MY_SERVICE_TOKEN"]
        print("printed", key, flush=True)
        sys.stderr.write("written " + key + "\\n")
        os.system("echo shell $MY_SERVICE_TOKEN; env")
        text = "| a | b |\\n|---|---|\\n| 1 | 2 |\\n\\nsource: https://api.example.com/v1?k=" + urllib.parse.quote(key)
        return ParseOutput(text, {"key": key, key: 1, "request": {"headers": ["Authorization: Bearer " + key]}})
'''


def test_a_parser_printing_its_environment_or_keeping_a_key_in_meta_leaves_no_key_anywhere(
        pytester: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Finding 7: `env` as a parser's output, in base64 too, or on stderr before it fails, a key in a
    parser's meta, and a parser printing it (junit keeps what tests print with `junit_logging=all`):
    none of it reaches results, the report, junit, the parse cache or the terminal."""
    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    cases = case_set(tmp_path / "cases" / "mini", 2)
    pytester.makepyfile(key_parser=ENV_PARSER)
    printing = "envp=command:sh -c 'env; printf %s \"$MY_SERVICE_TOKEN\" | base64' {pdf}"
    failing = "errp=command:sh -c 'env >&2; printenv MY_SERVICE_TOKEN >&2; exit 3' {pdf}"  # the key: its last line
    run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser={printing}", f"--parser={failing}",
                                        "--parser=metap=key_parser:KeyInMeta", "--metrics=teds",
                                        "-p", "no:cacheprovider", "-p", "no:xdist", "-o", "junit_logging=all",
                                        f"--parse-cache={tmp_path / 'cache'}", f"--junitxml={tmp_path / 'junit.xml'}",
                                        f"--report-dir={tmp_path / 'r'}", timeout=300)
    results = (tmp_path / "r" / "results.json").read_text(encoding="utf-8")
    assert f"MY_SERVICE_TOKEN={REDACTED}" in results, "the parser's output was kept, redacted"
    assert f"sh exited with code 3: {REDACTED}" in results
    printed = (tmp_path / "junit.xml").read_text(encoding="utf-8") + run.stdout.str() + run.stderr.str()
    assert f"shell {REDACTED}" in printed, "what the parser printed was passed on, redacted"
    cached = [p for p in (tmp_path / "cache").rglob("*.json") if "judge" not in p.parts]
    assert len(cached) >= 4, "the ok pages of both working parsers were cached"
    assert {p.name for p in stored_files(tmp_path / "r")} >= {"results.json", "results.jsonl", "report.html"}
    assert not canary_leaks(tmp_path, KEY)
    assert not canary_leaks(pytester.path, KEY)
    assert KEY not in run.stdout.str() + run.stderr.str()


class _Reads(io.RawIOBase):
    """A pipe that gives its bytes in the reads given (one read per part), as a parser's writes arrive."""

    def __init__(self, parts: list[bytes]) -> None:
        self.parts = list(parts)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        part = self.parts.pop(0) if self.parts else b""
        buffer[:len(part)] = part
        return len(part)


def _relayed(tmp_path: Path, parts: list[bytes]) -> str:
    from tablebench.parse.relay import MAX_LINE, relay

    assert all(len(part) <= MAX_LINE for part in parts)
    with io.BufferedReader(_Reads(parts), MAX_LINE) as pipe, (tmp_path / "relayed").open("wb") as out:
        relay(pipe, out.fileno()).join(timeout=60)  # type: ignore[arg-type, union-attr]
    return (tmp_path / "relayed").read_text(encoding="utf-8")


@pytest.mark.parametrize("form", ["raw", "escaped"])
def test_a_key_in_a_long_printed_line_is_redacted_wherever_the_reads_cut_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    """One line of `json.dumps(os.environ)` in a large CI environment is longer than a read: the key
    and every character are whole in what the run shows, wherever two reads meet."""
    from tablebench.parse.relay import MAX_LINE

    monkeypatch.setenv("SOMEPROVIDER_API_KEY", KEY)
    secret = KEY if form == "raw" else _escaped(KEY)
    line = ((secret + "€") * (3 * MAX_LINE // len(secret))).encode() + b"\nnext " + secret.encode() + b"\n"
    parts = [line[i:i + MAX_LINE] for i in range(0, len(line), MAX_LINE)]  # a key or a "€" across every cut
    assert _relayed(tmp_path, parts) == line.decode().replace(secret, REDACTED)


def test_a_key_that_spans_lines_is_redacted_when_its_lines_arrive_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A private key in a variable spans lines (a PEM block): `env` prints it across them."""
    pem = f"-----BEGIN KEY-----\n{KEY}\n{KEY[::-1]}\n-----END KEY-----"
    monkeypatch.setenv("SOMEPROVIDER_PRIVATE_KEY", pem)
    printed = f"HOME=/root\nSOMEPROVIDER_PRIVATE_KEY={pem}\nPATH=/bin\n".encode()
    cut = printed.index(KEY.encode()) + 5
    assert _relayed(tmp_path, [printed[:cut], printed[cut:]]) == printed.decode().replace(pem, REDACTED)


def test_tablebench_parse_prints_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture) -> None:
    """The debug command a failed case prints is pasted into CI logs too: the output it prints, a
    command's stderr and a traceback are redacted as a run's artefacts are."""
    from tablebench.cli import main

    monkeypatch.setenv("MY_SERVICE_TOKEN", KEY)
    monkeypatch.chdir(tmp_path)  # `module:Class` from the folder the command runs in
    (tmp_path / "key_parsers.py").write_text(
        "import os\n"
        "class Returns:\n    name, version = 'returns', '1'\n"
        "    def parse(self, pdf):\n        return 'key: ' + os.environ['MY_SERVICE_TOKEN']\n"
        "class Raises:\n    name, version = 'raises', '1'\n"
        "    def parse(self, pdf):\n        raise RuntimeError('bad token ' + os.environ['MY_SERVICE_TOKEN'])\n",
        encoding="utf-8")
    pdf = tmp_path / "page.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%%EOF\n")
    assert main(["parse", "command:sh -c 'env; printenv MY_SERVICE_TOKEN >&2; exit 3' {pdf}", str(pdf)]) == 1
    assert main(["parse", "command:sh -c 'env' {pdf}", str(pdf)]) == 0
    assert main(["parse", "key_parsers:Returns", str(pdf)]) == 0
    assert main(["parse", "key_parsers:Raises", str(pdf)]) == 1
    printed = capsys.readouterr()
    assert f"MY_SERVICE_TOKEN={REDACTED}" in printed.out and f"key: {REDACTED}" in printed.out
    assert f"RuntimeError: bad token {REDACTED}" in printed.err
    assert KEY not in printed.out + printed.err
