"""Words a parser ran together: `Collapse models` written `Collapsemodels`.

Some text layers lose the spaces between words (a PDF that places words by position, with no space
characters). A reader still reads `Walltime(sec)`, with effort, and no longer knows where each name
ends: the words themselves are damaged. The comparison counts the share of the ground truth's word
boundaries (two neighbouring words of one cell, each with a letter) that the extraction writes run
together, the two words joined and nowhere apart (`RULE`, ablatable), as the feature `spacing`, one
cause. Spacing a parser adds (`Col lapse`) is not counted here: a reader reads through it, and the
cell comparisons see the letters alike. Whitespace elsewhere in the comparison is forgiven
(`semantic_text.normalize`); this is the one place where a missing space costs.

Both sides are compared as text (normalised, case-folded), not cell by cell: a boundary is lost
when the extraction's text holds the joined form and never the spaced one, wherever its cells stand.
"""

from __future__ import annotations

import re

from tablebench.core.table import Table
from tablebench.metrics.tables.semantic_align import FEATURES, Differences
from tablebench.metrics.tables.semantic_causes import Cause
from tablebench.metrics.tables.semantic_text import normalize
from tablebench.readers.textnorm import fold_case

RULE = "spacing"  # the comparison's rule (`semantic.RULES`; `tablebench meta-eval --ablation` removes it)
_SHOWN = 3  # examples a cause names (no effect on the score)


def boundaries(table: Table) -> list[tuple[str, str]]:
    """The word boundaries of `table`: each pair of neighbouring words of a cell that both hold a
    letter (normalised, case-folded; `12 ms` or `± 0.3` are not names a reader runs together), the
    first not ending in a hyphen or a slash (`CLIP- M2DF` written `CLIP-M2DF` loses no word's end)."""
    out = []
    for cell in table.cells():
        words = fold_case(normalize(cell.text)).split()
        out += [(a, b) for a, b in zip(words, words[1:])
                if any(ch.isalpha() for ch in a) and any(ch.isalpha() for ch in b) and a[-1] not in "-‐‑/"]
    return out


def occurring(needles: set[str], text: str) -> set[str]:
    """Which of `needles` (non-empty) occur in `text`, in one pass over it: a regex of their trie,
    tried at every position (linear in the text, where a search per needle is needles x text: a
    large table against an extraction of megabytes). The regex finds the longest needle at a
    position; the shorter needles it begins with occur there too."""
    if not needles:
        return set()
    trie: dict = {}
    for needle in needles:
        node = trie
        for ch in needle:
            node = node.setdefault(ch, {})
        node[""] = {}
    try:
        pattern = re.compile("(?=(" + _alternation(trie) + "))")
    except (RecursionError, re.error):  # a trie branching thousands deep: a search per needle, slower, as right
        return {needle for needle in needles if needle in text}
    found = {m.group(1) for m in pattern.finditer(text)}
    return {f[:k] for f in found for k in range(1, len(f) + 1) if f[:k] in needles}


def _alternation(node: dict) -> str:
    """A trie node as a regex: its branches, optional where a needle ends here (greedy: longest first)."""
    alts = [re.escape(ch) + _alternation(child) for ch, child in sorted(node.items()) if ch]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    return f"(?:{body})?" if "" in node else body


def with_lost_spacing(differences: Differences, gt: Table, pred: Table) -> Differences:
    """`differences` with the share of `gt`'s word boundaries that `pred` runs together counted (see
    the module docstring); unchanged when none is lost."""
    pairs = boundaries(gt)
    if len(pairs) < 2:  # a boundary or none: no share a reader would call the table's spacing
        return differences
    text = "\n".join(fold_case(normalize(c.text)) for c in pred.cells())
    joined = occurring({a + b for a, b in pairs}, text)
    apart = occurring({f"{a} {b}" for a, b in pairs if a + b in joined}, text)
    lost = [(a, b) for a, b in pairs if a + b in joined and f"{a} {b}" not in apart]
    if not lost:
        return differences
    share = len(lost) / len(pairs)
    features = differences.features.copy()
    features[FEATURES.index("spacing")] += share
    distinct = list(dict.fromkeys(lost))
    some = ", ".join(f"'{a}{b}'" for a, b in distinct[:_SHOWN])
    text = (f"words run together in {len(lost)} of the table's {len(pairs)} word boundaries ({some}"
            f"{', ...' if len(distinct) > _SHOWN else ''})")
    cause = Cause("spacing", share, text)
    return Differences(features, [*differences.causes, cause], differences.f1, differences.recall,
                       differences.precision, differences.n_gt, differences.n_pred, differences.alignment)
