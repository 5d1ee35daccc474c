"""`tablebench parse SPEC PAGE.pdf`: one parser on one page, to see or debug it.

Why: a benchmark runs each parser in worker processes, with a timeout and a cache, and keeps
one line (and the end of the traceback) of a parser that raised. To find out why, run the same
spec on the same page here. A Python parser runs in this process: no worker, no cache, no
timeout, so a `breakpoint()` in the parser stops in this terminal, and `--pdb` opens the
debugger where the parser raised. A `command:` has no Python frames to stop in: it runs as the
benchmark runs it (a worker process, the same environment, the absolute path of a copy of the
page in its own temp folder), without the cache and with the longest timeout, and what it wrote
to stderr is printed when it fails. The failure of a benchmark case prints this command for its page.
What it prints (the output, a traceback, a command's stderr) is redacted as every artefact of a run
is (`tablebench.core.messages.redact`): the command is pasted into CI logs too. What a Python parser
prints itself goes to the terminal as it is (it runs in this process, for `breakpoint()`).
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import TextIO

from tablebench.core.messages import redact
from tablebench.core.options import MAX_PARSE_TIMEOUT
from tablebench.parse.command import CommandParser
from tablebench.parse.registry import importable_from, resolve
from tablebench.parse.result import TRACEBACK, settle
from tablebench.parse.runner import ParseRunner


def run_parse(spec: str, pdf: str, *, pdb: bool = False, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Print what the parser makes of `pdf` (stdout), then one line of facts (stderr): 0 when it
    gave text; 1 with the whole traceback (a command's stderr) when it failed, or when its output
    is not usable."""
    out, err = out or sys.stdout, err or sys.stderr
    path = Path(pdf)
    if not path.is_file():
        raise ValueError(f"{pdf}: no such PDF file")
    importable_from(Path.cwd())  # `pkg.mod:Class` from the project folder, as `pytest --parser` finds it
    parser = resolve(spec)  # an unknown spec or bad option: a one-line error from the command line
    started = time.perf_counter()
    if isinstance(parser, CommandParser):
        if pdb:
            raise ValueError("--pdb stops in a Python parser; a command: runs outside Python (its stderr is printed)")
        with ParseRunner(parser, cache_dir=None, timeout=MAX_PARSE_TIMEOUT) as runner:
            result = runner.run(path)
        trace = result.meta.get(TRACEBACK)
        if isinstance(trace, str) and trace:
            print(redact(trace), file=err)
        outcome, text, message = result.outcome, result.text, result.message
    else:
        try:
            prepare = getattr(parser, "prepare", None)
            if prepare is not None:
                prepare()
            raw = parser.parse(path.resolve())  # absolute, as a benchmark gives it
        except Exception as exc:  # noqa: BLE001 -- the point of the command: show it whole
            err.write(redact(traceback.format_exc()))
            if pdb:
                import pdb as debugger

                debugger.post_mortem(exc.__traceback__)
            print(f"tablebench parse: {spec} raised {type(exc).__name__} on {path.name}", file=err)
            return 1
        outcome, text, message, _ = settle(raw)
    seconds = time.perf_counter() - started
    if text:
        text = redact(text)
        out.write(text if text.endswith("\n") else text + "\n")
    facts = f"{outcome}, {len(text):,} characters, {seconds:.2f} s" + (f": {message}" if message else "")
    print(redact(f"tablebench parse: {spec} on {path.name}: {facts}"), file=err)
    return 0 if outcome == "ok" else 1
