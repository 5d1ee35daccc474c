"""How many parser worker processes this machine can hold at once: cores and available memory.

Why: `--parse-concurrency=48` started 48 worker processes and `--repeat=12` kept 12 alive
(pymupdf4llm: about 275 MB each), whatever the machine. Each worker is a Python process
holding a parser, so the count is bounded by memory (`MemAvailable` over a per-worker
budget) and by cores. A worker behind a model server mostly waits, so up to PER_CPU
workers share a core; beyond that neither waiting nor computing workers gain anything.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

WORKER_MEMORY = 300 * 2**20  # bytes budgeted per parser worker (the heaviest built-in parser, measured ~275 MB)
PER_CPU = 4  # parser workers per usable core


def usable_cpus() -> int:
    """Cores this process may run on (its affinity mask, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def available_memory(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """`MemAvailable` in bytes, or None where the kernel does not say."""
    try:
        for line in meminfo.read_text(encoding="ascii", errors="replace").splitlines():
            name, _, value = line.partition(":")
            if name == "MemAvailable":
                return int(value.split()[0]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


@dataclass(frozen=True)
class WorkerCap:
    """The most parser workers to run at once, and why when it is below what was asked."""

    cpus: int
    memory: int | None  # bytes available, None when unknown

    @classmethod
    def here(cls) -> WorkerCap:
        return cls(usable_cpus(), available_memory())

    @property
    def limit(self) -> int:
        by_memory = self.memory // WORKER_MEMORY if self.memory is not None else PER_CPU * self.cpus
        return max(1, min(PER_CPU * self.cpus, by_memory))

    @property
    def local(self) -> int:
        """Workers worth keeping alive for reuse (repetitions): one per core, within memory."""
        return max(1, min(self.cpus, self.limit))

    def of(self, requested: int) -> int:
        return max(1, min(int(requested), self.limit))

    def reason(self) -> str:
        mem = f"{self.memory / 2**30:.1f} GB available" if self.memory is not None else "memory unknown"
        return (f"{self.cpus} usable CPU{'s' if self.cpus != 1 else ''} x {PER_CPU}, "
                f"{mem} at {WORKER_MEMORY // 2**20} MB per worker")
