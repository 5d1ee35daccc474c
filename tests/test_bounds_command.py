"""A `command:` parser's stderr costs bounded memory however much it writes: it is read as a tail."""

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
from harness.parse.command import CommandParser
from harness.parse.protocol import ParserError
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
