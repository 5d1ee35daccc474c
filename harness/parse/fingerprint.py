"""A parser's identity: what its cached pages are keyed by, so an edited parser never gets old outputs.

A declared `version` is only as good as the author's discipline: a parser's code changes without
a bump all the time during development, often in a module the parser's class only imports. So
the parse cache keys on every file of its own a parser can run:

- a class (`module:Class`, an entry point): when its module is a file an installed distribution
  lists in its RECORD (a regular, not editable, install), that distribution's name, version and
  RECORD, which holds the sha256 of every file it installed. Otherwise the code is local and is
  keyed by content: every code file (`CODE_SUFFIXES`) in the folder of each package on the
  module's path (for a top-level module: its folder), and every local module it has imported,
  transitively (outside the standard library and the site folders).
- a `command:` (`tablebench.parse.command`): its program and every file the line names, and for
  each of them that is local (outside the system and site folders), the code files of the folder
  tree it lives in.

A folder tree skips `SKIPPED_FOLDERS`, hidden folders, virtual environments (a folder holding
`pyvenv.cfg`) and `*.egg-info`, holds at most `TREE_FILES` code files of `TREE_BYTES` bytes, and is
walked over at most `TREE_ENTRIES` files and folders (a folder of data beside the code is not read
at every start).
Beyond that, or for a class without a source file, the identity cannot be established: the pages
are parsed again in every run (not cached across runs), and the run's header says why and how to
declare a version instead (`?version=` on the spec). Hashes are memoised on each file's stat.
"""

from __future__ import annotations

import hashlib
import os
import site
import sys
import sysconfig
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Iterable

from tablebench.core.files import sha256_stamped, stat_key

HASH_LIMIT = 256 * 2**20  # bigger files (model weights named on a command line): size + mtime
TREE_FILES = 2000  # code files a folder tree may hold and still key a parser's identity
TREE_BYTES = 50 * 2**20
TREE_ENTRIES = 20_000  # files and folders a walk may visit (code or not): a data folder must not stall a run
CODE_SUFFIXES = frozenset({".py", ".pyx", ".pxd", ".so", ".pyd", ".sh", ".toml", ".cfg", ".ini", ".yaml", ".yml"})
SKIPPED_FOLDERS = frozenset({"__pycache__", "node_modules", "site-packages", "dist-packages", "build", "dist",
                             "reports"})
DECLARED = "version_declared"  # set by the registry on a parser whose spec says ?version=
DECLARE = ("to cache them, declare the version of its code on the spec, --parser='LABEL=pkg.mod:Class?version=V', "
           "or keep a command's files in a folder of their own")


@dataclass(frozen=True)
class Identity:
    """What a parser's cached pages are keyed by: `stamp` (None: not established, so its pages are
    not cached across runs) and one line saying what it covers, or why it could not be had."""

    stamp: str | None
    covers: str


class TreeTooBig(Exception):
    """A folder tree holds more code than `TREE_FILES` / `TREE_BYTES`."""


def file_stamp(path: Path) -> str:
    """The content hash of a file, or its size and mtime when it is too big to hash each run."""
    stat = path.stat()
    if stat.st_size > HASH_LIMIT:
        return f"size{stat.st_size}-mtime{stat.st_mtime_ns}"
    return sha256_stamped(str(path), stat_key(stat))


def digest(paths: Iterable[Path]) -> str:
    """One hex digest over the (path, content) of each readable file; unreadable ones count
    by name only (the parser will fail on them anyway, and that error is never cached)."""
    h = hashlib.sha256()
    for path in sorted({Path(p) for p in paths}):
        try:
            stamp = file_stamp(path)
        except OSError:
            stamp = "unreadable"
        h.update(f"{path}\0{stamp}\n".encode("utf-8", errors="surrogateescape"))
    return h.hexdigest()


def tree_files(folder: Path) -> list[Path]:
    """The code files of a folder tree (see the module docstring); TreeTooBig past the bound."""
    found: list[Path] = []
    size = seen = 0
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not _skipped(Path(top) / d))
        seen += len(dirs) + len(files)
        if seen > TREE_ENTRIES:
            raise TreeTooBig(f"{folder} holds more than {TREE_ENTRIES} files and folders")
        for name in sorted(files):
            path = Path(top) / name
            if path.suffix not in CODE_SUFFIXES or not path.is_file():
                continue
            found.append(path.resolve())
            size += path.stat().st_size
            if len(found) > TREE_FILES or size > TREE_BYTES:
                raise TreeTooBig(f"{folder} holds more than {TREE_FILES} code files or {TREE_BYTES >> 20} MB")
    return found


def _skipped(folder: Path) -> bool:
    name = folder.name
    return (name.startswith(".") or name in SKIPPED_FOLDERS or name.endswith(".egg-info")
            or (folder / "pyvenv.cfg").exists())


@cache
def installed_roots() -> tuple[Path, ...]:
    """Folders of installed code: the standard library, the site folders, the interpreter's prefixes."""
    paths = {sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    paths |= set(site.getsitepackages()) | {site.getusersitepackages(), sys.prefix, sys.base_prefix, sys.exec_prefix}
    paths |= {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/opt", "/etc", "/snap"}
    return tuple(sorted({Path(p).resolve() for p in paths if p}))


def is_installed(path: Path) -> bool:
    """True for a file under an installed-code folder (`installed_roots`): not the user's own code."""
    path = path.resolve()
    return any(root == path or root in path.parents for root in installed_roots())


def class_identity(obj: object) -> Identity:
    """The identity of a parser object by its class's code (see the module docstring)."""
    name = type(obj).__module__
    own = _module_file(name)
    if own is None:
        return Identity(None, f"its class {type(obj).__qualname__} has no source file ({name})")
    dist = _distribution_of(own, name.partition(".")[0])
    if dist is not None:
        record = dist.read_text("RECORD") or ""
        stamp = hashlib.sha256(f"{dist.metadata['Name']}\0{dist.version}\0{record}".encode()).hexdigest()
        return Identity(stamp, f"the installed distribution {dist.metadata['Name']} {dist.version}")
    folders = _package_folders(name, own)
    try:
        files = {f for folder in folders for f in tree_files(folder)}
    except (TreeTooBig, OSError) as exc:
        return Identity(None, str(exc))
    files |= _local_imports(name)
    return Identity(digest(files), f"{len(files)} code files of {', '.join(str(f) for f in folders)}")


def parser_identity(parser: object) -> Identity:
    """What `parser`'s cached pages are keyed by: the identity it computed itself (`code_identity`,
    a command's) or its class's; where neither can be established, the version declared on its
    spec (`?version=`, `DECLARED`), if any."""
    own = getattr(parser, "code_identity", None)
    found = own if isinstance(own, Identity) else class_identity(parser)
    if found.stamp is None and getattr(parser, DECLARED, False):
        version = str(getattr(parser, "version", ""))
        return Identity(f"declared:{version}", f"the version declared on its spec ({version}); {found.covers}")
    return found


def files_identity(named: Iterable[Path]) -> Identity:
    """The identity of a command by the files it names: each file, plus the code files of the folder
    tree of each local one (its program, a script)."""
    named = sorted({Path(p).resolve() for p in named})
    files = set(named)
    folders = sorted({p.parent for p in named if not is_installed(p)})
    try:
        files |= {f for folder in folders for f in tree_files(folder)}
    except (TreeTooBig, OSError) as exc:
        return Identity(None, str(exc))
    where = f" under {', '.join(map(str, folders))}" if folders else ""
    return Identity(digest(files), f"{len(files)} files{where}")


def _module_file(name: str) -> Path | None:
    file = getattr(sys.modules.get(name), "__file__", None)
    return Path(file).resolve() if file and Path(file).is_file() else None


def _distribution_of(file: Path, top: str) -> metadata.Distribution | None:
    """The installed distribution whose RECORD lists `file` (None for local or editable code)."""
    for dist_name in _distributions_by_top_level().get(top, []):
        try:
            dist = metadata.distribution(dist_name)
        except metadata.PackageNotFoundError:
            continue
        if dist.read_text("RECORD") is None:  # an egg-info beside a source tree: not an install
            continue
        if any(Path(str(dist.locate_file(f))).resolve() == file for f in dist.files or [] if f.suffix == ".py"):
            return dist
    return None


@cache
def _distributions_by_top_level() -> dict[str, list[str]]:
    """`importlib.metadata.packages_distributions()`, read once per process: it scans every installed
    distribution (0.1 s here), and each parser's identity is asked by the session and each runner."""
    return metadata.packages_distributions()


def _package_folders(name: str, own: Path) -> list[Path]:
    """The folders of each package on the module's dotted path (a mapped package may live apart
    from its parent), or a top-level module's folder."""
    parts = name.split(".")
    folders: set[Path] = set()
    for i in range(1, len(parts)):
        module = sys.modules.get(".".join(parts[:i]))
        folders |= {Path(p).resolve() for p in getattr(module, "__path__", []) or [] if Path(p).is_dir()}
    if len(parts) == 1 or not folders:
        folders.add(own.parent)
    return sorted(folders)


def _local_imports(name: str) -> set[Path]:
    """The files of every local module (not installed code) that `name` imports, transitively: a
    helper the parser imports from outside its own package."""
    seen: dict[str, Path | None] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen[current] = file = _module_file(current)
        if file is None or is_installed(file):
            continue
        module = sys.modules.get(current, ModuleType("_"))
        for value in list(vars(module).values()):
            dep = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
            if isinstance(dep, str) and dep in sys.modules and dep not in seen:
                todo.append(dep)
    return {f for f in seen.values() if f is not None and not is_installed(f)}
