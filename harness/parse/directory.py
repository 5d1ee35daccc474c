"""`dir:FOLDER` — precomputed outputs, one file per page: how parsers run elsewhere come in.

For `page.pdf` the folder holds `page.md`, `page.html`, `page.txt` or `page.tex` (first
found in that order) and optionally `page.meta.json` with the remote run's `seconds` and
`cost` (JSON numbers >= 0; see `read_sidecar`). A missing file is outcome "empty", with a
message naming what was looked for.

The folder is trusted with outputs, not with the machine: a page's file (and its sidecar) is
read only when it is a regular file inside the folder (`read_inside`). A symlink that leaves
the folder (`001.txt -> /proc/self/environ`, `-> /etc/passwd`) would put local files, API keys
among them, into results.json and report.html; a device or a FIFO would read forever. Either
fails its page in one line, and the next format is not read in its place.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from tablebench.core.messages import one_line
from tablebench.parse.protocol import ParseOutput, ParserError, amount, output

FORMATS = {".md": "markdown", ".html": "html", ".txt": "text", ".tex": "latex"}
MAX_BYTES = 8_000_000


class DirParser:
    """Reads the output file next to nothing but its name: cheap, so not cached nor isolated."""

    cacheable = False
    in_process = True

    def __init__(self, folder: str) -> None:
        if not folder.strip():
            raise ValueError("dir: needs a folder, e.g. dir:outputs/myparser")
        self.folder = Path(folder).expanduser().resolve()
        if not self.folder.is_dir():
            raise ValueError(f"dir:{folder}: {self.folder} is not a folder")
        self.name = f"dir:{folder}"
        self.version = "1"
        self.config = {"dir": str(self.folder)}

    def parse(self, pdf_path: Path) -> ParseOutput:
        started = time.perf_counter()
        stem = Path(pdf_path).stem
        found = [self.folder / f"{stem}{ext}" for ext in FORMATS if _present(self.folder / f"{stem}{ext}")]
        if not found:
            names = "|".join(FORMATS)
            return output("", started, message=f"no {stem}{{{names}}} in {self.folder}")
        meta: dict = {"format": FORMATS[found[0].suffix], "file": found[0].name}
        if len(found) > 1:
            meta["ignored"] = [p.name for p in found[1:]]
        text = read_inside(found[0], self.folder, MAX_BYTES).decode("utf-8", errors="replace")
        sidecar = self.folder / f"{stem}.meta.json"
        if _present(sidecar):
            meta.update(read_sidecar(sidecar, self.folder))
        result = output(text, started, message=f"{found[0].name} is empty", **meta)
        result.meta.update({k: meta[k] for k in ("seconds", "cost") if k in meta})
        return result


SHOWN_FILES = 3  # of a folder's files named in the naming hint


def naming_hint(spec: str, pdfs: Sequence[Path]) -> str | None:
    """One line for a `dir:` spec whose folder holds an output for none of `pdfs` (files named
    after something else: every table would fail as "empty" without saying why): the names it
    reads and a few of the files it holds. None for any other spec, or when one matches. The run
    refuses to start on it (`tablebench.parse.preflight`)."""
    kind, _, folder = spec.partition(":")
    if kind != "dir" or not pdfs:
        return None
    parser = DirParser(folder)
    if any((parser.folder / f"{Path(pdf).stem}{ext}").is_file() for pdf in pdfs for ext in FORMATS):
        return None
    files = sorted(p.name for p in parser.folder.iterdir() if p.is_file())
    shown = ", ".join(files[:SHOWN_FILES]) + (", ..." if len(files) > SHOWN_FILES else "")
    held = f"it holds {len(files)} file{'s' if len(files) != 1 else ''}: {shown}" if files else "it is empty"
    example = Path(pdfs[0]).stem
    return (f"{spec}: no output file for any of the {len(pdfs)} pages, so every case would be "
            f"'empty': for PAGE.pdf it reads PAGE{{{'|'.join(FORMATS)}}} (e.g. {example}.md for {example}.pdf); {held}")


def _present(path: Path) -> bool:
    """Whether the folder holds something under this name (a dangling symlink too: it is refused, not skipped)."""
    return path.is_symlink() or path.exists()


def read_inside(path: Path, folder: Path, limit: int) -> bytes:
    """At most `limit` bytes of `path`, a regular file inside `folder` (resolved; symlinks are
    followed while they stay inside), else a one-line ParserError. The file is opened without
    blocking and without following a last symlink, and checked on the open descriptor: what is
    read is what was checked, even if the name is swapped in between."""
    where = f"(dir: reads regular files inside {folder})"
    real = path.resolve()
    if not real.is_relative_to(folder):
        raise ParserError(f"{path.name}: a symlink out of the folder {where}")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError as exc:
        raise ParserError(f"{path.name}: cannot be read ({exc.strerror or exc}) {where}") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ParserError(f"{path.name}: not a regular file {where}")
        return handle.read(limit)


MAX_SIDECAR_BYTES = 1_000_000  # a sidecar holds two numbers


def read_sidecar(path: Path, folder: Path | None = None) -> dict[str, float]:
    """`seconds` and `cost` of a `.meta.json` sidecar (other keys are ignored), each a JSON
    number >= 0; anything else (not JSON, not an object, `1e309`, `NaN`, `-1`, `"3"`) is a
    one-line ParserError at parse time, so a bad file fails its page, not the run's totals.
    Read only as a regular file inside `folder` (default: its own folder), like the outputs."""
    raw = read_inside(path, (folder or path.parent).resolve(), MAX_SIDECAR_BYTES)
    try:
        extra = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError) as exc:
        raise ParserError(f"{path.name}: not a JSON object with numeric seconds/cost ({one_line(exc, 120)})") from None
    if not isinstance(extra, dict):
        raise ParserError(f"{path.name}: not a JSON object with numeric seconds/cost (got {type(extra).__name__})")
    try:
        return {k: amount(extra[k], k) for k in ("seconds", "cost") if k in extra}
    except ValueError as exc:
        raise ParserError(f"{path.name}: {exc}") from None
