"""A `command:` parser's stdout and stderr cost bounded memory and disk however much it writes:
stdout is kept up to `MAX_BYTES` (the rest counted), stderr as its tail, neither in a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LIMIT = 512 * 1024 * 1024  # bytes of address space for the child: far below the 1 GB written to stderr

_NOISY = """import os
block = b"x" * (1 << 20)
for _ in range(1024):
    os.write(2, block)
os.write(2, b"\\nlast words\\n")
raise SystemExit(3)
"""

_CHILD = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))
from tablebench.parse.command import CommandParser
from tablebench.parse.protocol import ParserError
try:
    CommandParser({command!r}).parse(Path({pdf!r}))
except ParserError as exc:
    print(exc)
"""


def test_a_gigabyte_on_stderr_is_read_as_its_tail(tmp_path: Path) -> None:
    pdf, script = tmp_path / "a.pdf", tmp_path / "noisy.py"
    pdf.write_bytes(b"%PDF-1.4\n")
    script.write_text(_NOISY, encoding="utf-8")
    child = _CHILD.format(limit=LIMIT, pdf=str(pdf), command=f"{sys.executable} {script} {{pdf}}")
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("exited with code 3: last words")


_WRITE = """
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))  # inherited by the command: no file past it
from tablebench.parse.command import MAX_BYTES, CommandParser
out = CommandParser({command!r}).parse(Path({pdf!r}))
print(len(out.text), out.meta["bytes"], out.meta["truncated_bytes"], set(out.text))
"""


def test_a_command_writing_200_mb_to_stdout_writes_no_file_of_it(tmp_path: Path) -> None:
    from tablebench.parse.command import MAX_BYTES

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    total = 200_000_000
    command = f"sh -c 'head -c {total} /dev/zero | tr \"\\\\0\" a; echo \"$0\" >/dev/null' {{pdf}}"
    child = _WRITE.format(limit=4 * MAX_BYTES, pdf=str(pdf), command=command)
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == [str(MAX_BYTES), str(total), str(total - MAX_BYTES), "{'a'}"]


def test_a_process_left_in_the_background_holding_stdout_does_not_hold_the_page(tmp_path: Path) -> None:
    from tablebench.parse.command import CommandParser

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"%PDF-1.4\n")
    out = CommandParser("sh -c 'sleep 20 & echo \"| a | b |\"' {pdf}").parse(pdf)  # sleep holds the pipe 20 s
    assert out.text == "| a | b |\n" and out.meta["bytes"] == 10
