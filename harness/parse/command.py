"""`command:CLI` — any command-line parser: `{pdf}` is the input, `{out}` an output file.

Without `{out}` the command's stdout is the output. Output goes through a file either
way, and at most `MAX_BYTES` of it is read, so a runaway command cannot exhaust memory; stderr
goes to a file too, of which only the last `MAX_BYTES` are read (for its last line).

The version (hence the parse-cache key) covers the content of the program and of every
existing file the command line names (`python my_parser.py {pdf}` keys on my_parser.py,
also inside `sh -c '...'` strings and `--opt=FILE` forms), so editing the script re-parses.
Scratch files live in a temporary folder removed on every exit path; when the worker
process is killed (timeout), `harness.parse.runner` removes the worker's whole TMPDIR.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from harness.parse.fingerprint import digest
from harness.parse.protocol import ParseOutput, ParserError, output

MAX_BYTES = 8_000_000
ADAPTER_REVISION = "2"
PLACEHOLDERS = ("{pdf}", "{out}")


class CommandParser:
    """Runs `CLI` once per PDF; a non-zero exit is an error naming the code and stderr's last line."""

    def __init__(self, command: str) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"command:{command}: cannot split the command line ({exc})") from None
        if not any("{pdf}" in arg for arg in self.argv):
            raise ValueError(f"command:{command}: needs a {{pdf}} placeholder for the input file")
        self.uses_out = any("{out}" in arg for arg in self.argv)
        self.name = f"command:{command}"
        self.version = f"{ADAPTER_REVISION}+{_files_stamp(self.argv)}"
        self.config = {"command": command}

    def parse(self, pdf_path: Path) -> ParseOutput:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="tablebench-command-") as tmp:
            out = Path(tmp) / f"{Path(pdf_path).stem}.out"
            argv = [a.replace("{pdf}", str(pdf_path)).replace("{out}", str(out)) for a in self.argv]
            stdout_path, stderr_path = Path(tmp) / "stdout", Path(tmp) / "stderr"
            with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
                try:
                    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, check=False)
                except OSError as exc:
                    raise ParserError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None
            if proc.returncode != 0:
                lines = _tail(stderr_path).decode("utf-8", errors="replace").strip().splitlines()
                raise ParserError(f"{argv[0]} exited with code {proc.returncode}" + (f": {lines[-1]}" if lines else ""))
            source = out if self.uses_out else stdout_path
            if not source.exists():
                raise ParserError(f"{argv[0]} exited 0 but wrote no {{out}} file")
            size = source.stat().st_size
            with open(source, "rb") as handle:
                data = handle.read(MAX_BYTES)
        meta = {"bytes": size, "message": f"{argv[0]} wrote nothing"}
        if size > MAX_BYTES:
            meta["truncated_bytes"] = size - MAX_BYTES
        return output(data.decode("utf-8", errors="replace"), started, **meta)


def _tail(path: Path) -> bytes:
    """The last `MAX_BYTES` of a file: stderr goes to disk like stdout, and only this much is read."""
    with open(path, "rb") as handle:
        size = handle.seek(0, 2)
        handle.seek(max(0, size - MAX_BYTES))
        return handle.read(MAX_BYTES)


def named_files(argv: list[str], depth: int = 2) -> list[Path]:
    """The existing files a command line runs or reads: its program (looked up on PATH) and
    every token that is a file path, a `--key=FILE` value, or (up to `depth` levels) a file
    named inside a quoted shell string. Tokens holding `{pdf}` / `{out}` are the per-page
    input and output, not part of the parser."""
    found: list[Path] = []
    for i, token in enumerate(argv):
        if depth and any(ch.isspace() for ch in token):
            try:
                found += named_files(shlex.split(token), depth - 1)
            except ValueError:  # not a shell string after all
                pass
            continue
        if any(p in token for p in PLACEHOLDERS):
            continue
        candidates = [token, token.partition("=")[2]] if "=" in token else [token]
        if i == 0 and "/" not in token:
            candidates.append(shutil.which(token) or "")
        for candidate in filter(None, candidates):
            try:
                path = Path(candidate).expanduser()
                if path.is_file():
                    found.append(path.resolve())
            except (OSError, ValueError):  # a name too long or holding NUL: not a file
                pass
    return found


def _files_stamp(argv: list[str]) -> str:
    """A digest of the content of every file the command names ("missing" without its program)."""
    program = argv[0]
    if not (shutil.which(program) or Path(program).expanduser().is_file()):
        return "missing"
    return digest(named_files(argv))[:16]
