"""The run folders a benchmark makes under reports/: their name, `reports/latest`, and how many stay.

Why: every run without `--report-dir` adds a folder, so reports/ grew without bound and the
newest run had to be found by its timestamp. At the end of such a run (`keep_newest`):

- `reports/latest` names the run's folder: a relative symlink (the folder may move with
  reports/), or, where the OS makes none (Windows without the symlink privilege, some network
  file systems), a small text file holding the folder's name and a newline. A `latest` that is
  neither (a folder of the user's) is left alone.
- The newest `keep` run folders stay (`DEFAULT_REPORT_KEEP`, `--report-keep`; 0 keeps every
  one). Only a run folder the tool made is ever removed: a folder named as `run_folder` names
  one (`<YYYYmmdd-HHMMSS>-<parsers>`, `-2`, `-3`, ... for runs started in the same second)
  that holds nothing but what a run writes there (`run_files`, write_atomic's temporary
  files). A folder with anything else in it (a note a user put there, a junit file), any other
  name, a file, and a folder another run is writing to (it holds the folder's run lock) stay.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from tablebench.core.files import RUN_LOCK, claim_folder, write_atomic

LATEST = "latest"
_TEMPORARY = re.compile(r"^\..+\.tmp$")  # `write_atomic`'s, left by a run killed while writing
_RUN_NAME = re.compile(r"^(?P<stamp>\d{8}-\d{6})-[A-Za-z0-9._+-]+$")


def run_folder(reports: Path, labels: Sequence[str]) -> Path:
    """`reports/<UTC timestamp>-<parser labels>`: the default report folder of a run (not created
    here: `tablebench.core.files.new_folder` adds `-2`, ... when another run took the name)."""
    slug = re.sub(r"[^A-Za-z0-9._+-]+", "_", "+".join(labels)).strip("_.")[:60] or "parsers"
    return Path(reports) / f"{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}-{slug}"


def keep_newest(reports: Path, current: Path, keep: int) -> list[Path]:
    """Point `reports/latest` at `current` and remove the run folders beyond the newest `keep`
    (0: none), `current` always kept; returns the folders removed (see the module docstring)."""
    reports = Path(reports)
    _point_latest(reports, Path(current).name)
    if keep <= 0:
        return []
    runs = sorted((p for p in reports.iterdir() if _is_run_folder(p)), key=_age, reverse=True)
    removed = []
    for old in [p for p in runs if p.name != Path(current).name][max(0, keep - 1):]:
        try:
            held = claim_folder(old, "run folder")
        except ValueError:
            continue  # another run is writing there
        try:
            shutil.rmtree(old)
            removed.append(old)
        except OSError:
            pass  # kept: a folder that cannot be removed now is removed by a later run
        finally:
            held.release()
    return removed


def _age(folder: Path) -> tuple[str, int]:
    """Newest last: the timestamp in the name, then (same second) the folder's own time."""
    match = _RUN_NAME.match(folder.name)
    return (match["stamp"] if match else "", folder.stat().st_mtime_ns)


def run_files() -> frozenset[str]:
    """What a run writes into its folder: any other entry means someone else put it there.
    (Imported here, not at the top: the plugin's workers name folders, they never render reports.)"""
    from tablebench.report.crops import CROPS_FOLDER
    from tablebench.report.finish import GATE_FILE
    from tablebench.report.stream import STREAM_FILE
    from tablebench.report.write import FILES

    return frozenset({*FILES.values(), STREAM_FILE, GATE_FILE, CROPS_FOLDER, RUN_LOCK})


def _is_run_folder(path: Path) -> bool:
    if path.is_symlink() or not path.is_dir() or not _RUN_NAME.match(path.name):
        return False
    ours = run_files()
    return all(entry.name in ours or _TEMPORARY.match(entry.name) for entry in path.iterdir())


def _point_latest(reports: Path, name: str) -> None:
    latest = reports / LATEST
    if latest.is_dir() and not latest.is_symlink():
        return  # a folder of the user's
    link = reports / f".{LATEST}.{os.getpid()}.tmp"
    try:
        link.unlink(missing_ok=True)
        os.symlink(name, link, target_is_directory=True)
        os.replace(link, latest)
    except (OSError, NotImplementedError):
        link.unlink(missing_ok=True)
        write_atomic(latest, f"{name}\n")
