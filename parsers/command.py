"""`command:CLI` — any command-line parser: `{pdf}` is the input, `{out}` an output file.

Without `{out}` the command's stdout is the output. Output goes through a file either
way, and at most `MAX_BYTES` of it is read, so a runaway command cannot exhaust memory.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from parsers.base import ParseOutput, ParserError, output

MAX_BYTES = 8_000_000
ADAPTER_REVISION = "1"


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
        self.version = f"{ADAPTER_REVISION}+{_program_stamp(self.argv[0])}"
        self.config = {"command": command}

    def parse(self, pdf_path: Path) -> ParseOutput:
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="tablebench-command-") as tmp:
            out = Path(tmp) / f"{Path(pdf_path).stem}.out"
            argv = [a.replace("{pdf}", str(pdf_path)).replace("{out}", str(out)) for a in self.argv]
            stdout_path = Path(tmp) / "stdout"
            with open(stdout_path, "wb") as stdout:
                try:
                    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=stdout, stderr=subprocess.PIPE)
                except OSError as exc:
                    raise ParserError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from None
            if proc.returncode != 0:
                lines = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()
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


def _program_stamp(program: str) -> str:
    """Size and mtime of the program the command runs, so rebuilding it invalidates the cache."""
    found = shutil.which(program) or (program if Path(program).exists() else None)
    if not found:
        return "missing"
    stat = Path(found).stat()
    return f"{stat.st_size}-{int(stat.st_mtime)}"
