"""A `command:` line read once, before any page runs: split, checked, and made to run anywhere.

Why apart from running it (`tablebench.parse.command`): what the line names is decided when the
spec is resolved, in the folder the run starts in, while every page runs the command in a temp
folder of its own. So a path the line names relative to the run's folder is made absolute here
(`absolute`), a mistyped placeholder is refused here rather than becoming a file named `{ouT}`
(`split`), and the files the line names key the parse cache (`named_files`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from pathlib import Path

PLACEHOLDERS = ("{pdf}", "{out}")
# `{name}` as a placeholder would be written; `${HOME}` is the shell's, and a brace group with
# spaces (`awk '{ print }'`) is no name
_NAMED = re.compile(r"(?<!\$)\{[A-Za-z_]\w*\}")
# a word inside a shell string: what lies between spaces, quotes and the shell's operators
_WORD = re.compile(r"[^\s'\"`;|&<>()=]+")
_SHELL_SAFE = re.compile(r"[\w@%+=:,./-]+")  # a path that needs no quoting in a shell string


def split(command: str) -> list[str]:
    """The command line as argv; a one-line ValueError when it cannot be split, lacks `{pdf}`, or
    holds a `{name}` other than the placeholders (naming them)."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ValueError(f"command:{command}: cannot split the command line ({exc})") from None
    if not any("{pdf}" in arg for arg in argv):
        raise ValueError(f"command:{command}: needs a {{pdf}} placeholder for the input file")
    unknown = list(dict.fromkeys(m for arg in argv for m in _NAMED.findall(arg) if m not in PLACEHOLDERS))
    if unknown:
        raise ValueError(f"command:{command}: unknown placeholder{'s' if len(unknown) > 1 else ''} "
                         f"{', '.join(unknown)} (known: {', '.join(PLACEHOLDERS)})")
    return argv


def absolute(argv: list[str]) -> list[str]:
    """`argv` with every relative path that names an existing file, or an existing folder written
    with a `/` (`models/x`, not a bare word), made absolute against the current folder: as a whole
    token, as the value of `--key=VALUE`, and as a word inside a shell string (`sh -c '...'`) when
    the absolute path needs no quoting there. A program without a `/` is looked up on PATH and
    stays as it is; symlinks are kept (`.venv/bin/python` stays the venv's)."""
    made = []
    for i, token in enumerate(argv):
        if any(ch.isspace() for ch in token):
            made.append(_WORD.sub(lambda m: _absolute(m.group(0), shell=True), token))
        elif i == 0 and "/" not in token:
            made.append(token)
        elif "=" in token and _absolute(token) == token:
            key, _, value = token.partition("=")
            made.append(f"{key}={_absolute(value)}")
        else:
            made.append(_absolute(token))
    return made


def _absolute(word: str, shell: bool = False) -> str:
    if not word or "{" in word or word.startswith("~") or os.path.isabs(word):
        return word
    try:
        path = Path(word)
        exists = path.is_file() or ("/" in word and path.is_dir())
    except (OSError, ValueError):  # a name too long or holding NUL: not a path
        return word
    full = os.path.abspath(word)
    return full if exists and (not shell or _SHELL_SAFE.fullmatch(full)) else word


def named_files(argv: list[str], depth: int = 2) -> list[Path]:
    """The existing files a command line runs or reads: its program (looked up on PATH) and
    every token that is a file path, a `--key=FILE` value, or (up to `depth` levels) a file
    named inside a quoted shell string. Tokens holding `{pdf}` / `{out}` are the per-page
    input and output, not part of the parser."""
    found: list[Path] = []
    for i, token in enumerate(argv):
        if depth and any(ch.isspace() for ch in token):
            try:
                found += named_files(shlex.split(token), depth - 1)
            except ValueError:  # not a shell string after all
                pass
            continue
        if any(p in token for p in PLACEHOLDERS):
            continue
        candidates = [token, token.partition("=")[2]] if "=" in token else [token]
        if i == 0 and "/" not in token:
            candidates.append(shutil.which(token) or "")
        for candidate in filter(None, candidates):
            try:
                path = Path(candidate).expanduser()
                if path.is_file():
                    found.append(path.resolve())
            except (OSError, ValueError):  # a name too long or holding NUL: not a file
                pass
    return found
