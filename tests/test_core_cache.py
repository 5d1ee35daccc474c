"""tablebench.core.cache and tablebench.core.files.locked: the one content cache every result goes through."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tablebench.core.cache import ContentCache
from tablebench.core.files import locked
from tablebench.tex.render import RenderError, render_glyphs
from tablebench.tex.runner import have_pdflatex

KEY = "ab" + "0" * 62


def _number(entry: object) -> int:
    if not isinstance(entry, dict) or not isinstance(entry.get("n"), int):
        raise ValueError("not a number entry")
    return entry["n"]


def test_fetch_computes_once_then_reads_back(tmp_path: Path) -> None:
    cache, calls = ContentCache(tmp_path), []
    compute = lambda: calls.append(1) or 7  # noqa: E731
    assert cache.fetch(KEY, _number, compute, lambda n: {"n": n}) == (7, False)
    assert cache.fetch(KEY, _number, compute, lambda n: {"n": n}) == (7, True)
    assert len(calls) == 1
    assert cache.path(KEY) == tmp_path / "ab" / f"{KEY}.json"
    assert json.loads(cache.path(KEY).read_text()) == {"n": 7}
    assert not list(tmp_path.rglob("*.tmp"))
    flat = ContentCache(tmp_path, fan_out=False, prefix="formulas-")
    assert flat.path(KEY) == tmp_path / f"formulas-{KEY}.json"


@pytest.mark.parametrize("stored", ['{"n": 7', '["n", 7]', '{"n": "seven"}', "\udcff"], ids=["torn", "list", "type", "bytes"])
def test_an_entry_that_does_not_read_back_is_recomputed_and_overwritten(tmp_path: Path, stored: str) -> None:
    cache = ContentCache(tmp_path)
    cache.path(KEY).parent.mkdir(parents=True)
    cache.path(KEY).write_bytes(stored.encode("utf-8", errors="surrogateescape"))
    assert cache.get(KEY, _number) is None
    assert cache.fetch(KEY, _number, lambda: {"n": 3}) == ({"n": 3}, False)
    assert cache.get(KEY, _number) == 3


def test_bad_key_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cache key must be"):
        ContentCache(tmp_path).path("../escape")


def test_concurrent_askers_compute_once(tmp_path: Path) -> None:
    cache, calls, answers = ContentCache(tmp_path), [], []

    def slow() -> dict:
        calls.append(1)
        time.sleep(0.2)
        return {"n": 1}

    threads = [threading.Thread(target=lambda: answers.append(cache.fetch(KEY, _number, slow)[1]))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and sorted(answers) == [False, True, True]


def test_lock_excludes_another_process(tmp_path: Path) -> None:
    lock = tmp_path / "k" / "key.lock"
    done = tmp_path / "released"  # written by the holder as the last thing it does while holding the lock
    code = ("import sys, time, pathlib\nfrom tablebench.core.files import locked\n"
            "with locked(sys.argv[1]):\n    print('held', flush=True)\n    time.sleep(0.5)\n"
            "    pathlib.Path(sys.argv[2]).write_text('x')\n")
    holder = subprocess.Popen([sys.executable, "-c", code, str(lock), str(done)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with locked(lock):
            waited_for_it = done.exists()  # true only if this acquire waited for the holder's release
    finally:
        holder.wait(10)
    assert waited_for_it and lock.exists()


@pytest.mark.skipif(not have_pdflatex(), reason="pdflatex is not installed (apt texlive-latex-base)")
def test_formula_render_cache_overwrites_a_bad_entry(tmp_path: Path) -> None:
    pytest.importorskip("pymupdf")
    glyphs = render_glyphs("$x+1$", tmp_path)
    (entry,) = tmp_path.rglob("*.json")
    entry.write_text('{"glyphs": [["x", 1, 2]]}')
    assert render_glyphs("$x+1$", tmp_path) == glyphs
    assert len(json.loads(entry.read_text())["glyphs"]) == len(glyphs)
    with pytest.raises(RenderError):
        render_glyphs(r"$\frac{1}$", tmp_path)
    assert any("error" in json.loads(p.read_text()) for p in tmp_path.rglob("*.json"))


def test_an_atomic_write_to_a_pipe_or_device_writes_into_it_and_never_replaces_it(tmp_path) -> None:
    import os
    import threading

    from tablebench.core.files import write_atomic

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")), daemon=True)
    reader.start()
    write_atomic(fifo, "baseline text")
    reader.join(timeout=10)
    assert got == ["baseline text"] and fifo.is_fifo()  # as /dev/null must stay a device
