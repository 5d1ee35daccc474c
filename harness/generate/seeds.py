"""Seeds derived from a case set's seed: pages, their tables and formulas, their scan variants.

Apart from `page.py` so that `variants.py` (read when the command line is built) can derive
a page's variant seed without loading the page builder.
"""

from __future__ import annotations

import hashlib


def derive_seed(*parts: int | str) -> int:
    """A stable 63-bit seed from parts (same on every platform and Python version)."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
