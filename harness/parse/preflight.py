"""What makes a parser spec unable to work at all, found before the benchmark starts.

Why: a `command:` whose program is not installed, a `dir:` folder named after something else,
or a `vlm:` model without its key fails every page, one after the other, after minutes of
setup, and the report then shows a parser that "found nothing". Each of these is known from
the spec alone: `setup_problems` names them, one line each, and the run refuses to start (the
plugin's usage error, exit code 4).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from tablebench.parse.directory import naming_hint


def setup_problems(specs: Mapping[str, str], pdfs: Sequence[Path]) -> list[str]:
    """One line per parser (label -> spec) that cannot parse any of `pdfs`; [] when all can."""
    out = []
    for label, spec in specs.items():
        kind, colon, rest = spec.partition(":")
        problem = None
        if colon and kind == "command":
            problem = _command_problem(rest)
        elif colon and kind == "dir":
            problem = naming_hint(spec, pdfs)
        elif colon and kind == "vlm":
            problem = _vlm_problem(rest)
        if problem:
            out.append(f"--parser {label}: {problem}")
    return out


def _command_problem(command: str) -> str | None:
    try:
        argv = shlex.split(command)
    except ValueError:
        return None  # resolving the spec says what is wrong with it
    program = argv[0] if argv else ""
    if not program or "{" in program:
        return None
    if os.sep in program:
        path = Path(program).expanduser()
        return None if path.is_file() and os.access(path, os.X_OK) else f"{program}: no such executable file"
    return None if shutil.which(program) else f"program {program!r} is not on PATH (install it, or give its full path)"


def _vlm_problem(rest: str) -> str | None:
    """The model's key is missing: its `api_key_env` is unset, or (no `api_base`: a provider's
    own endpoint) litellm finds none of the provider's variables."""
    from tablebench.parse.registry import split_options

    model, options = split_options(rest)
    var = options.get("api_key_env")
    if var:
        return None if os.environ.get(var) else f"vlm:{model}: environment variable {var} (api_key_env) is not set"
    if options.get("api_base"):
        return None  # a local server: no key needed
    from tablebench.core.llm_transport import litellm_module

    try:
        found = litellm_module().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - a provider litellm does not know: the first call will say
        return None
    if found.get("keys_in_environment", True):
        return None
    missing = ", ".join(found.get("missing_keys") or []) or "its provider's API key"
    return f"vlm:{model}: no API key in the environment (set {missing}, or give api_key_env=VAR or api_base=URL)"
