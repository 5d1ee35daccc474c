"""Pool files, for tables and formulas alike: JSONL read with one-line errors, written by harvest,
and the record of an entry that vetting or harvest refused.

One JSON object per line with a non-empty `"latex"` string, an optional label (`"complexity"`
for tables, `"kind"` for formulas) and an optional `"source"` (else `file:line`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Rejected:
    """An entry that was refused: where it came from and why (`reason` is a short category)."""

    source: str
    reason: str
    detail: str


def read_pool_lines(path: Path | str, label: str, allowed: tuple[str, ...], *, what: str,
                    items: str) -> list[tuple[str, str | None, str]]:
    """(latex, optional `label` value, source) per line of a JSONL pool (tables or formulas);
    one-line errors naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{what} {path} not found")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{n}: invalid JSON ({exc.msg})") from None
        if not isinstance(entry, dict) or not isinstance(entry.get("latex"), str) or not entry["latex"].strip():
            raise ValueError(f'{path}:{n}: expected an object with a non-empty "latex" string')
        value = entry.get(label)
        if value is not None and value not in allowed:
            raise ValueError(f"{path}:{n}: {label} {value!r} is not one of {', '.join(allowed)}")
        source = entry.get("source")
        out.append((entry["latex"], value, str(source) if source else f"{path.name}:{n}"))
    if not out:
        raise ValueError(f"{path}: no {items} in the {what}")
    return out


def write_pool_lines(rows: list[dict], out: Path | str) -> None:
    """A pool file: one JSON object per line, non-ASCII kept as it is."""
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    Path(out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
