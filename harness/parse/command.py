"""`command:CLI` — any command-line parser: `{pdf}` is the input, `{out}` an output file.

Without `{out}` the command's stdout is the output. Each page runs in a private temp folder, the
command's working directory and its TMPDIR, on a copy of the PDF there: what it writes beside its
input (`pdftotext -layout {pdf}` writes `001.txt`) or into its working directory stays there and
is removed with it, never in the case set or the folder the run started in. The line itself is
read once (`tablebench.parse.command_line`: relative paths made absolute, unknown placeholders
refused).

stdout and stderr are read from pipes as the command writes them, never stored in a file: the
first `MAX_BYTES` of stdout are kept and the rest only counted, and the last `MAX_BYTES` of
stderr, so a runaway command costs neither memory nor disk (a file of it once grew by ~870 MB in
4 s). An `{out}` file is read up to `MAX_BYTES` too. When the command fails, its stderr is the
error's `details`: the end of it, redacted, is kept as the page's traceback (a Python script's
own traceback, where the harness's frames would say nothing), and its last line is the message.

The version (hence the parse-cache key) covers the content of the program and of every
existing file the command line names (`python my_parser.py {pdf}` keys on my_parser.py,
also inside `sh -c '...'` strings and `--opt=FILE` forms), so editing the script re-parses.
The temp folder is removed on every exit path; when the worker process is killed (timeout),
`tablebench.parse.runner` removes the worker's whole TMPDIR, which holds it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

from tablebench.parse.command_line import absolute, named_files, split
from tablebench.parse.fingerprint import Identity, files_identity
from tablebench.parse.protocol import ParseOutput, ParserError, output

MAX_BYTES = 8_000_000
CHUNK = 1 << 16
# after the command exits, how long its pipes are still read: a process it left in the background
# may hold them open, and its output after the command's exit is not the command's
DRAIN_SECONDS = 5.0
ADAPTER_REVISION = "3"
SCRATCH_PREFIX = "tablebench-command-"  # the private temp folder of each page


class CommandParser:
    """Runs `CLI` once per PDF; a non-zero exit is an error naming the code and stderr's last line,
    with the whole stderr as its details."""

    def __init__(self, command: str) -> None:
        self.argv = absolute(split(command))  # against the folder the run starts in: pages run elsewhere
        self.uses_out = any("{out}" in arg for arg in self.argv)
        self.name = f"command:{command}"
        self.code_identity = _identity(self.argv)  # what its cached pages are keyed by
        stamp = self.code_identity.stamp
        self.version = f"{ADAPTER_REVISION}+{stamp[:16] if stamp else 'missing' if _missing(self.argv) else 'uncached'}"
        self.config = {"command": command}

    def parse(self, pdf_path: Path) -> ParseOutput:
        started = time.perf_counter()
        # what cannot be removed (a process the command left behind still writing) goes with the worker's TMPDIR
        with tempfile.TemporaryDirectory(prefix=SCRATCH_PREFIX, ignore_cleanup_errors=True) as tmp:
            pdf = Path(tmp) / Path(pdf_path).name
            shutil.copyfile(pdf_path, pdf)
            out = Path(tmp) / f"{pdf.stem}.out"
            argv = [a.replace("{pdf}", str(pdf)).replace("{out}", str(out)) for a in self.argv]
            try:
                proc = subprocess.Popen(argv, cwd=tmp, env=dict(os.environ, TMPDIR=tmp, TEMP=tmp, TMP=tmp),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            except OSError as exc:
                raise ParserError(f"cannot run {argv[0]!r}: {exc.strerror or exc}", details="") from None
            stdout = _Capture(proc.stdout, keep=0 if self.uses_out else MAX_BYTES)
            stderr = _Capture(proc.stderr, keep=MAX_BYTES, tail=True)
            returncode = proc.wait()
            stdout.finish()
            stderr.finish()
            errors = stderr.data().decode("utf-8", errors="replace").strip()
            if returncode != 0:
                last = errors.splitlines()[-1:]
                raise ParserError(f"{argv[0]} exited with code {returncode}" + (f": {last[0]}" if last else ""),
                                  details=errors)
            if self.uses_out:
                if not out.exists():
                    raise ParserError(f"{argv[0]} exited 0 but wrote no {{out}} file", details=errors)
                size = out.stat().st_size
                with open(out, "rb") as handle:
                    data = handle.read(MAX_BYTES)
            else:
                size, data = stdout.total, stdout.data()
        meta = {"bytes": size, "message": f"{argv[0]} wrote nothing"}
        if size > MAX_BYTES:
            meta["truncated_bytes"] = size - MAX_BYTES
        return output(data.decode("utf-8", errors="replace"), started, **meta)


class _Capture:
    """One pipe of the command, read to its end in a thread: the first `keep` bytes kept (the last,
    with `tail`), every byte counted in `total`."""

    def __init__(self, pipe: IO[bytes] | None, keep: int, tail: bool = False) -> None:
        self.pipe, self.keep, self.tail = pipe, keep, tail
        self.total = 0
        self._chunks: list[bytes] = []
        self._kept = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        if self.pipe is None:
            return
        with self.pipe:
            while chunk := self.pipe.read1(CHUNK):
                with self._lock:
                    self._add(chunk)

    def _add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.tail:
            self._chunks.append(chunk)
            self._kept += len(chunk)
            while self._kept - len(self._chunks[0]) >= self.keep:
                self._kept -= len(self._chunks.pop(0))
        elif self._kept < self.keep:
            self._chunks.append(chunk[: self.keep - self._kept])
            self._kept += len(self._chunks[-1])

    def finish(self) -> None:
        """Wait for the pipe's end, at most `DRAIN_SECONDS` after the command exited (a process it
        left in the background may hold the pipe open: the thread then reads on, and is ignored)."""
        self._thread.join(DRAIN_SECONDS)

    def data(self) -> bytes:
        with self._lock:
            data = b"".join(self._chunks)
        return data[-self.keep:] if self.tail and self.keep else data[: self.keep]


def _identity(argv: list[str]) -> Identity:
    """The command's identity: every file it names and the code of the folders its local files
    live in (`tablebench.parse.fingerprint.files_identity`); none for a program that is not there
    (every page fails, and failures are never cached)."""
    if _missing(argv):
        return Identity(None, f"its program {argv[0]} is not found")
    return files_identity(named_files(argv))


def _missing(argv: list[str]) -> bool:
    return not (shutil.which(argv[0]) or Path(argv[0]).expanduser().is_file())
