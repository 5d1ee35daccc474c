"""Runs that outgrow one process: xdist workers on other hosts (`--tx socket=`) and parser servers.

Both tests use loopback only. The socket test starts execnet's own socket server — the
program a remote host runs — so the workers take the same path as on real remote hosts; the
concurrency test runs a `vlm:` parser against a loopback OpenAI-compatible server that counts
the requests it holds at once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci_cases import REPO, case_set, shift_one_char, write_pages
from tests.llm_server import LLMServer, Reply
from tests.test_plugin import PLUGIN

pytest_plugins = ["pytester"]


def socket_server(workdir: Path) -> tuple[subprocess.Popen, int]:
    """execnet's socket server on 127.0.0.1 at a free port; the port read from its first line."""
    import execnet

    script = Path(execnet.__file__).parent / "script" / "socketserver.py"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    proc = subprocess.Popen([sys.executable, "-u", str(script), "127.0.0.1:0"], cwd=workdir, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()  # "socket_readline_exec_server-1.2 Entering Accept loop ('127.0.0.1', PORT)"
    try:
        port = int(line.rsplit(",", 1)[1].strip(" )\n"))
    except (IndexError, ValueError):
        proc.kill()
        raise RuntimeError(f"socket server did not start: {line!r}") from None
    return proc, port


def results_of(folder: Path) -> list[tuple]:
    data = json.loads((folder / "results.json").read_text())
    return [(r["page"], r["index"], r["parser"], r["outcome"], r["scores"]) for r in data["results"]]


def test_socket_workers_give_the_results_of_a_local_run(pytester: pytest.Pytester, tmp_path: Path):
    cases = case_set(tmp_path / "cases" / "mini", 4)
    out = write_pages(tmp_path / "shifted", cases, shift_one_char)
    common = [*PLUGIN, f"--cases={cases}", f"--parser=mine=dir:{out}", "--metrics=teds,grits",
              "-p", "no:cacheprovider", f"--parse-cache={tmp_path / 'cache'}"]
    local = pytester.runpytest_subprocess(*common, "-p", "no:xdist", f"--report-dir={tmp_path / 'local'}")
    assert local.ret == 0, local.stdout.str()
    host = tmp_path / "host"  # the "remote host's" working folder
    host.mkdir()
    servers = [socket_server(host) for _ in range(2)]  # one server runs one worker at a time
    try:
        tx = [arg for _, port in servers for arg in ("--tx", f"socket=127.0.0.1:{port}")]
        remote = pytester.runpytest_subprocess(*common, "--dist=load", *tx, "-v", f"--report-dir={tmp_path / 'remote'}", timeout=300)
    finally:
        for proc, _ in servers:
            proc.kill()
            proc.wait()
    logs = [proc.stdout.read() for proc, _ in servers]
    text = remote.stdout.str()
    assert remote.ret == 0, text
    assert "created: 2/2 workers" in text and "[gw0]" in text and "[gw1]" in text, text
    assert all("got new connection from 127.0.0.1" in log for log in logs), "each worker ran in a socket server"
    assert results_of(tmp_path / "remote") == results_of(tmp_path / "local")
    assert len(results_of(tmp_path / "local")) == sum(1 for _ in json.loads(
        (tmp_path / "local" / "results.json").read_text())["results"]) > 10


def test_parse_concurrency_keeps_eight_requests_in_flight(pytester: pytest.Pytester, tmp_path: Path):
    cases = case_set(tmp_path / "cases" / "mini", 8)
    answer = Reply(content="<table><tr><td>nothing</td><td>useful</td></tr></table>")
    with LLMServer([answer], hold_until=8, hold_timeout=60) as server:
        spec = "vlm:openai/tiny-vlm?dpi=30&retries=0&timeout=120"  # the server comes from --llm-api-base
        run = pytester.runpytest_subprocess(*PLUGIN, f"--cases={cases}", f"--parser=vlm={spec}", "--metrics=teds",
                                            "-p", "no:cacheprovider", "-p", "no:xdist", "--report-only",
                                            f"--parse-cache={tmp_path / 'cache'}", "--parse-concurrency=8",
                                            f"--llm-api-base={server.api_base}",
                                            f"--report-dir={tmp_path / 'r'}", timeout=300)
        assert run.ret == 0, run.stdout.str()
        assert server.max_in_flight >= 8, f"at most {server.max_in_flight} requests in flight"
        assert len(server.requests) == 8, "one request per page, none repeated"
        outcomes = {r[3] for r in results_of(tmp_path / "r")}
        assert outcomes <= {"ok", "missing"}, outcomes


def test_execnets_cache_folder_is_ignored_by_git() -> None:
    """`--tx socket=` from the checkout leaves pyexecnetcache/ behind: git must not offer to commit it."""
    import shutil

    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", "-q", "pyexecnetcache/module.py"], cwd=REPO)
    assert ignored.returncode == 0


def test_a_lost_remote_worker_ends_the_run_and_the_run_says_what_it_lost(tmp_path: Path):
    """Issue 20, item 2: a remote worker lost mid-run (its host gone) must not hang the run, and the
    results it writes must say whether every item finished."""
    import time

    cases = case_set(tmp_path / "cases" / "mini", 16)
    started = tmp_path / "started"  # each worker's parses leave its name: the host is killed once both parse
    started.mkdir()
    slow = tmp_path / "slow_parser.py"
    mark = f"os.path.join({str(started)!r}, os.environ.get('PYTEST_XDIST_WORKER', 'none'))"
    slow.write_text(f"import os, sys, time\nopen({mark}, 'w').close()\ntime.sleep(1.5)\nprint('nothing')\n",
                    encoding="utf-8")
    host = tmp_path / "host"
    host.mkdir()
    servers = [socket_server(host) for _ in range(2)]
    tx = [arg for _, port in servers for arg in ("--tx", f"socket=127.0.0.1:{port}")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep))
    cmd = [sys.executable, "-m", "pytest", *PLUGIN, f"--cases={cases}",
           f"--parser=mine=command:{sys.executable} {slow} {{pdf}}", "--metrics=teds", "-p", "no:cacheprovider",
           f"--parse-cache={tmp_path / 'cache'}", "--dist=load", *tx, f"--report-dir={tmp_path / 'r'}", "-q"]
    run = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 150  # a loaded machine may take a while to start remote workers
        both = {"gw0", "gw1"}
        while not both <= {p.name for p in started.iterdir()} and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # not a fixed sleep: a host killed while its worker starts is another failure (xdist's)
        assert both <= {p.name for p in started.iterdir()}, f"the workers never both parsed: {list(started.iterdir())}"
        servers[0][0].kill()  # the host of gw0 is gone, mid-run: 16 pages of 1.5 s take two workers 12 s
        out, _ = run.communicate(timeout=180)
    finally:
        run.kill()
        for proc, _ in servers:
            proc.kill()
            proc.wait()
    data = json.loads((tmp_path / "r" / "results.json").read_text(encoding="utf-8"))
    completeness = data["meta"]["completeness"]
    assert run.returncode != 0, out
    assert not completeness["complete"] and completeness["finished"] == len(data["results"]) < completeness["expected"]
    assert completeness["missing"] and "remote worker" in completeness["reason"], completeness
