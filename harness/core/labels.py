"""Parser labels: the short, stable name a parser has in test ids, leaderboards and baselines.

A spec says how to run a parser (`dir:/out/`, `command:python my.py {pdf}`, `pdfplumber?x=1`);
a label says which parser it is. Baselines are keyed by label, so moving a folder or changing
a command line keeps matching when the user names the parser: `--parser mine=command:...`.
Without a name the label derives from the spec: the spec itself, a `dir:` path normalised
(`dir:/x/` = `dir:/x`), and for `command:` the program names plus a short hash of the
command line (a test id must not hold the whole command line).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex

_NAMED = re.compile(r"^(?P<label>[A-Za-z0-9][A-Za-z0-9_.+-]*)=(?P<spec>\S.*)$", re.S)
_INTERPRETERS = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|sh|bash|zsh|node|ruby|perl|env|uv|uvx)$")


def split_label(value: str) -> tuple[str | None, str]:
    """'mine=dir:/x' -> ('mine', 'dir:/x'); a spec without `NAME=` in front -> (None, spec).

    A name is letters, digits and `_.+-` only, so `pdfplumber?strategy=lines` and
    `command:tool --x=1` are specs, not names."""
    m = _NAMED.match(value.strip())
    return (m["label"], m["spec"].strip()) if m else (None, value.strip())


def default_label(spec: str) -> str:
    """The label of an unnamed spec (see the module docstring)."""
    kind, colon, rest = spec.partition(":")
    if colon and kind == "dir" and rest:
        return "dir:" + os.path.normpath(rest)
    if colon and kind == "command":
        return f"command:{_programs(rest)}#{hashlib.sha256(spec.encode('utf-8')).hexdigest()[:8]}"
    return spec


def _programs(command: str) -> str:
    """'python3 /x/run.py --fast {pdf}' -> 'python3+run.py': the program, and for an interpreter
    the script (or `-m` module) it runs; inline code (`-c '...'`) is left to the hash."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    names: list[str] = []
    module = False
    for word in words:
        if not names:
            names.append(os.path.basename(word.rstrip("/")) or word)
            if not _INTERPRETERS.match(names[0]):
                break
        elif module:
            names.append(word)
            break
        elif word == "-m":
            module = True
        elif word.startswith("-") or "{" in word:
            continue
        elif any(c.isspace() or c in ";|&$`'\"" for c in word):
            break  # inline code, not a script
        else:
            names.append(os.path.basename(word.rstrip("/")) or word)
            break
    label = "+".join(names) or "cmd"
    return re.sub(r"[^A-Za-z0-9_.+-]", "_", label)[:40]


def label_specs(values: list[str]) -> dict[str, str]:
    """{label: spec} for `--parser` values (already split on commas); a one-line ValueError when two
    parsers would share a label."""
    out: dict[str, str] = {}
    for value in values:
        named, spec = split_label(value)
        label = named or default_label(spec)
        if label in out:
            if out[label] == spec:
                continue
            raise ValueError(f"--parser: two parsers have the label {label!r} ({out[label]!r} and {spec!r}); "
                             "name them with --parser NAME=SPEC")
        out[label] = spec
    return out
