"""Pool files, for tables and formulas alike: JSONL read with one-line errors, written by harvest,
and the record of an entry that vetting or harvest refused.

One JSON object per line with a non-empty `"latex"` string, an optional label (`"complexity"`
for tables, `"kind"` for formulas) and an optional `"source"` (else `file:line`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tablebench.core.cache import ContentCache


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


def vetted_pool(path: Path | str, cache_dir: Path | str | None, salt: str, item: type,
                vet: Callable[[], tuple[list, list[Rejected]]], *, items: str,
                prefix: str = "") -> tuple[list, list[Rejected], str]:
    """(kept `item`s, rejected, the file's sha256) of a pool file, vetted once per content.

    With `cache_dir` the outcome is stored as `<cache_dir>/<prefix><key>.json`, the key a hash of
    the file's bytes and `salt` (what vetting depends on: reference preamble, vetting version),
    through `tablebench.core.cache` (atomic, locked per key; an entry that does not read back is
    vetted again and overwritten). A pool of which nothing survives is a one-line error."""
    path = Path(path)
    data = path.read_bytes() if path.is_file() else b""

    def read(entry: Any) -> tuple[list, list[Rejected]]:
        return [item(**t) for t in entry["kept"]], [Rejected(**r) for r in entry["rejected"]]

    def encode(outcome: tuple[list, list[Rejected]]) -> dict:
        return {"kept": [asdict(t) for t in outcome[0]], "rejected": [asdict(r) for r in outcome[1]]}

    if cache_dir is not None and data:
        key = hashlib.sha256(b"\0".join([data, salt.encode()])).hexdigest()
        kept, rejected = ContentCache(cache_dir, fan_out=False, prefix=prefix).fetch(key, read, vet, encode)[0]
    else:
        kept, rejected = vet()
    if not kept:
        reasons = sorted({r.reason for r in rejected})
        raise ValueError(f"{path}: no usable {items} in the pool (rejected: {', '.join(reasons)})")
    return kept, rejected, hashlib.sha256(data).hexdigest()
