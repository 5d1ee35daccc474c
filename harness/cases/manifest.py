"""A case set's `manifest.json`: the sha256 of every page file, checked before a benchmark runs.

A page edited by hand, a truncated copy or a stray `NNN.json` would otherwise be benchmarked
without a word, and scores from two runs would compare different ground truth. Hashing is
cheap (synth-v1, 200 files / 9.8 MB: ~30 ms warm), so the plugin verifies on every run;
`--no-verify` skips it with a warning. pdf-parse-bench folders have no manifest: nothing to check.

A case set comes from anyone, so no file of it is opened before `case_file_problem` passed it: a
regular file (a symlink is followed, but a symlink to /dev/zero or a FIFO is refused: reading
one takes gigabytes or forever) no larger than its bound. The manifest check runs before any
page is read, and the page reader checks each file again (`--no-verify`, pdf-parse-bench folders).
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from tablebench.core.files import read_json, sha256_file

MANIFEST = "manifest.json"
FORMAT = "tablebench-caseset/1"
MAX_CASE_FILE_BYTES = 16 * 1024 * 1024  # a page's JSON or the manifest (real ones: ~20 KB)
MAX_PDF_BYTES = 256 * 1024 * 1024  # a page's PDF (real ones: ~200 KB; a scan a few MB)
MAX_NAMED = 5  # names of unlisted files a line shows (their number is exact)


def case_file_problem(path: Path | str) -> str | None:
    """Why the case-set file `path` must not be read ("NAME: not a regular file", "NAME: larger than
    N bytes"), or None when it may: checked with one `stat`, before anything opens it."""
    path = Path(path)
    try:
        info = os.stat(path)
    except OSError as exc:
        return f"{path.name}: cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return f"{path.name}: not a regular file"
    limit = MAX_PDF_BYTES if path.suffix.lower() == ".pdf" else MAX_CASE_FILE_BYTES
    if info.st_size > limit:
        return f"{path.name}: larger than {limit} bytes"
    return None


def check_case_file(path: Path | str) -> Path:
    """`path`, or a one-line ValueError naming it when `case_file_problem` finds one."""
    problem = case_file_problem(path)
    if problem is not None:
        raise ValueError(f"{Path(path).parent}/{problem}")
    return Path(path)


def read_manifest(folder: Path | str) -> dict:
    """The manifest of a case-set folder; a one-line ValueError when it is absent, not JSON or not one."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise ValueError(f"{folder} is not a case set: {MANIFEST} is missing")
    manifest = read_json(check_case_file(path))
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else type(manifest).__name__
        raise ValueError(f"{path}: unknown format {found!r}, expected {FORMAT!r}")
    if not isinstance(manifest.get("files"), dict):
        raise ValueError(f"{path}: no 'files' table of sha256 sums")
    return manifest


def page_files(folder: Path | str, suffix: str = ".json") -> list[Path]:
    """A case set's page files (`007.json`, `1000.json`: names of digits only), in page order."""
    found = [p for p in Path(folder).glob(f"[0-9]*{suffix}") if p.stem.isdigit()]
    return sorted(found, key=lambda p: (int(p.stem), p.stem))


def verify_files(folder: Path | str) -> list[str]:
    """Problems found: page files missing, not listed, or whose sha256 differs from the manifest.

    Raises ValueError (one line) when the manifest itself is unreadable."""
    folder = Path(folder)
    listed = read_manifest(folder)["files"]
    present = {p.name for p in folder.iterdir() if p.suffix in (".pdf", ".json") and p.name != MANIFEST}
    problems = [f"{name}: missing" for name in sorted(set(listed) - present)]
    problems += [f"{name}: not in the manifest" for name in sorted(present - set(listed))]
    unreadable = {name: problem for name in sorted(set(listed) & present)
                  if (problem := case_file_problem(folder / name)) is not None}
    problems += list(unreadable.values())
    problems += [f"{name}: sha256 mismatch" for name in sorted(set(listed) & present)
                 if name not in unreadable and sha256_file(folder / name) != listed[name]]
    return problems


def unlisted_files(folder: Path | str) -> list[str]:
    """What a case-set folder holds besides its manifest and the files it lists, that no reader
    opens (`001.txt` a command wrote beside its PDF; a folder as `notes/`), sorted. Why not refused
    as `verify_files` refuses a stray page: such a file cannot change a score, and refusing would
    push a user to `--no-verify`, which drops the check that matters; it is named instead, since
    "files match the manifest" would otherwise be said of a folder that holds more."""
    folder = Path(folder)
    listed = set(read_manifest(folder)["files"])
    return sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                  if p.name not in listed and p.name != MANIFEST and p.suffix not in (".pdf", ".json"))


def named(names: list[str] | tuple[str, ...], limit: int = MAX_NAMED) -> str:
    """'001.txt, outputs/': the first `limit` names, then how many more there are ('… and 95 more')."""
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def check_case_set(folder: Path | str) -> None:
    """Refuse a case set whose files do not match its manifest, naming the first bad files."""
    problems = verify_files(folder)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise ValueError(f"case set {folder} does not match its {MANIFEST}: {shown} "
                         "(restore the files, or benchmark anyway with --no-verify)")


def manifest_sha256(folder: Path | str) -> str | None:
    """A case set's version: the sha256 of its manifest (which pins every file). A folder without
    one (pdf-parse-bench's layout) gets the sha256 of the manifest it would have, each page file's
    path and sha256, sorted; None for a folder with no page files. A baseline records it, and a run
    on another version refuses to compare against that baseline (`gating.rules.baseline_notes`)."""
    folder = Path(folder)
    path = folder / MANIFEST
    if path.exists():
        return sha256_file(check_case_file(path))
    files = sorted(p for sub in ("pdfs", "ground_truth") for p in (folder / sub).glob("*") if p.is_file())
    if not files:
        return None
    listing = "".join(f"{p.relative_to(folder).as_posix()} {sha256_file(check_case_file(p))}\n" for p in files)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()
