"""A case set's `manifest.json`: the sha256 of every page file, checked before a benchmark runs.

A page edited by hand, a truncated copy or a stray `NNN.json` would otherwise be benchmarked
without a word, and scores from two runs would compare different ground truth. Hashing is
cheap (synth-v1, 200 files / 9.8 MB: ~30 ms warm), so the plugin verifies on every run;
`--no-verify` skips it with a warning. pdf-parse-bench folders have no manifest: nothing to check.
"""

from __future__ import annotations

from pathlib import Path

from harness.core.files import read_json, sha256_file

MANIFEST = "manifest.json"
FORMAT = "tablebench-caseset/1"


def read_manifest(folder: Path | str) -> dict:
    """The manifest of a case-set folder; a one-line ValueError when it is absent, not JSON or not one."""
    path = Path(folder) / MANIFEST
    if not path.is_file():
        raise ValueError(f"{folder} is not a case set: {MANIFEST} is missing")
    manifest = read_json(path)
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
    problems += [f"{name}: sha256 mismatch" for name in sorted(set(listed) & present)
                 if sha256_file(folder / name) != listed[name]]
    return problems


def check_case_set(folder: Path | str) -> None:
    """Refuse a case set whose files do not match its manifest, naming the first bad files."""
    problems = verify_files(folder)
    if problems:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        raise ValueError(f"case set {folder} does not match its {MANIFEST}: {shown} "
                         "(restore the files, or benchmark anyway with --no-verify)")


def manifest_sha256(folder: Path | str) -> str | None:
    """The sha256 of the set's manifest (which pins every file), or None for a folder without one."""
    path = Path(folder) / MANIFEST
    return sha256_file(path) if path.is_file() else None
