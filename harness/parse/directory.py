"""`dir:FOLDER` — precomputed outputs, one file per page: how parsers run elsewhere come in.

For `page.pdf` the folder holds `page.md`, `page.html`, `page.txt` or `page.tex` (first
found in that order) and optionally `page.meta.json` with the remote run's `seconds` and
`cost` (JSON numbers >= 0; see `read_sidecar`). A missing file is outcome "empty", with a
message naming what was looked for.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path

from harness.core.messages import one_line
from harness.parse.protocol import ParseOutput, ParserError, amount, output

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
        found = [self.folder / f"{stem}{ext}" for ext in FORMATS if (self.folder / f"{stem}{ext}").is_file()]
        if not found:
            names = "|".join(FORMATS)
            return output("", started, message=f"no {stem}{{{names}}} in {self.folder}")
        meta: dict = {"format": FORMATS[found[0].suffix], "file": found[0].name}
        if len(found) > 1:
            meta["ignored"] = [p.name for p in found[1:]]
        with open(found[0], "rb") as handle:
            text = handle.read(MAX_BYTES).decode("utf-8", errors="replace")
        sidecar = self.folder / f"{stem}.meta.json"
        if sidecar.is_file():
            meta.update(read_sidecar(sidecar))
        result = output(text, started, message=f"{found[0].name} is empty", **meta)
        result.meta.update({k: meta[k] for k in ("seconds", "cost") if k in meta})
        return result


SHOWN_FILES = 3  # of a folder's files named in the naming hint


def naming_hint(spec: str, pdfs: Sequence[Path]) -> str | None:
    """One line for a `dir:` spec whose folder holds an output for none of `pdfs` (files named
    after something else: every table would fail as "empty" without saying why up front): the
    names it reads and a few of the files it holds. None for any other spec, or when one matches."""
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
    return (f"tablebench WARNING: {spec}: no output file for any of the {len(pdfs)} pages, so every case will be "
            f"'empty': for PAGE.pdf it reads PAGE{{{'|'.join(FORMATS)}}} (e.g. {example}.md for {example}.pdf); {held}")


def read_sidecar(path: Path) -> dict[str, float]:
    """`seconds` and `cost` of a `.meta.json` sidecar (other keys are ignored), each a JSON
    number >= 0; anything else (not JSON, not an object, `1e309`, `NaN`, `-1`, `"3"`) is a
    one-line ParserError at parse time, so a bad file fails its page, not the run's totals."""
    try:
        extra = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ParserError(f"{path.name}: not a JSON object with numeric seconds/cost ({one_line(exc, 120)})") from None
    if not isinstance(extra, dict):
        raise ParserError(f"{path.name}: not a JSON object with numeric seconds/cost (got {type(extra).__name__})")
    try:
        return {k: amount(extra[k], k) for k in ("seconds", "cost") if k in extra}
    except ValueError as exc:
        raise ParserError(f"{path.name}: {exc}") from None
