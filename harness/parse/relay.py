"""What a parser worker prints, passed on to the run's own stdout and stderr with its secrets redacted.

Why: a worker used to inherit the run's file descriptors, so a parser that printed its
environment (`print(os.environ)`, `os.system("env")`) wrote the API keys of the run straight
into what pytest captures: the terminal's failure sections and junit XML (`junit_logging`).
The worker's stdout and stderr are pipes now, read here as the bytes arrive (up to `MAX_LINE`
at a time), redacted in this process (whose environment is the run's, whatever the parser
changed in its own) and written to this process's descriptors 1 and 2, where they went before.
What arrived together is redacted together, not line by line (50 MB of short LaTeX lines: 69 s
line by line, 2.4 s this way), and what is passed on ends where no secret can be cut in two: at
a line break, as no secret holds one (else, and within a line longer than `MAX_LINE`, all but
as many characters as a secret's longest encoded form takes wait for the next read). A
character split between two reads is decoded whole. A reader ends when every process holding
its pipe is gone.
"""

from __future__ import annotations

import codecs
import os
import threading
from typing import BinaryIO

from tablebench.core.messages import redact, secrets

MAX_LINE = 1 << 16  # bytes read at a time; characters of a line without a break before a piece is passed on
FORM_CHARS = 12  # characters one character of a secret takes at most once encoded (%F4%8F%BF%BF)
MIN_HELD = 512  # characters held back at least where a cut is not at a line break (a key-shaped `sk-...`)


def relay(pipe: BinaryIO | None, fd: int) -> threading.Thread | None:
    """Pass `pipe` on to descriptor `fd`, redacted, in a daemon thread (returned; None without a pipe)."""
    if pipe is None:
        return None
    thread = threading.Thread(target=_copy, args=(pipe, fd), daemon=True, name=f"tablebench-relay-{fd}")
    thread.start()
    return thread


def _copy(pipe: BinaryIO, fd: int) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    held = ""  # redacted, not passed on yet: it may hold the start of a secret the next read ends
    with pipe:
        while chunk := pipe.read1(MAX_LINE):  # type: ignore[attr-defined]  # a pipe's BufferedReader
            text = redact(held + decoder.decode(chunk))
            cut = _cut(text)
            held = text[cut:]
            _write(fd, text[:cut])
        _write(fd, redact(held + decoder.decode(b"", final=True)))


def _cut(text: str) -> int:
    """How much of `text` can be passed on now: up to its last line break when no secret holds
    one; else (or when a line without a break has grown past `MAX_LINE`) all but the characters
    the longest secret may take once encoded."""
    values = secrets()
    if not any("\n" in value for value in values):
        cut = text.rfind("\n") + 1
        if cut or len(text) <= MAX_LINE:
            return cut
    return max(0, len(text) - max(MIN_HELD, FORM_CHARS * max(map(len, values), default=0)))


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8")
    try:
        while data:
            data = data[os.write(fd, data):]
    except OSError:  # the run's own output is gone (closed, a full disk): drop, keep draining
        pass
