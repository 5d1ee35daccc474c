"""The text metrics: how faithfully, completely and in which order an output holds a page's prose.

Each is a pure function of (ground truth, prediction): `gt` is the page's text blocks in reading
order, `pred` the parser's whole output (its prose is read by `tablebench.readers.prose`, without
the ground truth), and each returns a value in [0, 1], 1 the best, as the rule metrics here do.
All four read one word alignment (`tablebench.metrics.text.alignment.align_text`, computed once per pair).
Lengths are counted in characters of the normalised words, each word with one separator, so a
paragraph's share of the page is its share of the characters.

- `text_fidelity`: 1 - normalised edit distance between the ground truth and the output's
  prose put in ground-truth order: (characters missing + characters invented or repeated +
  the edit distance of every edited stretch) / the longer of the two. Order does not count here
  (`reading_order` does); what a reader forgives (`tablebench.readers.textnorm.forgiven`) does
  not count; a changed word does. Dropping a paragraph of share s gives 1 - s; repeating one,
  1 - s / (1 + s).
- `reading_order`: the share of the matched prose (by characters) in the heaviest sequence of
  runs read in ground-truth order; what is read out of it is the rest. Two columns read as one
  line across both score about 0.5; the columns swapped, 0.5; one paragraph moved, 1 - its share.
- `text_recall`: the share of the ground truth's characters found (matched or edited).
- `text_precision`: the share of the prose's characters that are ground truth (not invented,
  not repeated).
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from tablebench.metrics.text.alignment import DUPLICATE, INVENTED, MISSING, Alignment, align_text, in_order, run_weights


def _chars(words: Sequence, indices: range | list[int]) -> int:
    return sum(len(words[i].norm) + 1 for i in indices)


def counts(a: Alignment) -> dict[str, int]:
    """The character counts every text metric is made of (also what a card shows); counted once per alignment."""
    if "counts" not in a.derived:
        a.derived["counts"] = _counted(a)
    return dict(a.derived["counts"])


def _counted(a: Alignment) -> dict[str, int]:
    gt_chars = _chars(a.gt, range(len(a.gt)))
    out_chars = _chars(a.out, range(len(a.out)))
    missing = sum(len(a.gt[g].norm) + 1 for g in range(len(a.gt)) if a.coverage[g] == MISSING)
    invented = sum(len(a.out[j].norm) + 1 for j in range(len(a.out)) if a.status[j] == INVENTED)
    repeated = sum(len(a.out[j].norm) + 1 for j in range(len(a.out)) if a.status[j] == DUPLICATE)
    edited = sum(edit_cost(a, edit) for edit in a.edits)
    weights = run_weights(a)
    kept = in_order(a)
    return {"gt_chars": gt_chars, "out_chars": out_chars, "missing_chars": missing, "invented_chars": invented,
            "repeated_chars": repeated, "edit_chars": edited, "matched_chars": sum(weights),
            "out_of_order_chars": sum(w for w, k in zip(weights, kept, strict=True) if not k)}


def edit_cost(a: Alignment, edit: tuple[int, int, int, int]) -> int:
    """The edit distance of one edited stretch: its ground-truth words against the output's words."""
    o_lo, o_hi, g_lo, g_hi = edit
    return Levenshtein.distance(" ".join(w.norm for w in a.gt[g_lo:g_hi]), " ".join(w.norm for w in a.out[o_lo:o_hi]))


def fidelity_of(c: dict[str, int]) -> float:
    longer = max(c["gt_chars"], c["out_chars"])
    if longer == 0:
        return 1.0
    cost = c["missing_chars"] + c["invented_chars"] + c["repeated_chars"] + c["edit_chars"]
    return max(0.0, 1.0 - cost / longer)


def order_of(c: dict[str, int]) -> float:
    return 1.0 - c["out_of_order_chars"] / c["matched_chars"] if c["matched_chars"] else 0.0


def recall_of(c: dict[str, int]) -> float:
    return 1.0 - c["missing_chars"] / c["gt_chars"] if c["gt_chars"] else 1.0


def precision_of(c: dict[str, int]) -> float:
    return 1.0 - (c["invented_chars"] + c["repeated_chars"]) / c["out_chars"] if c["out_chars"] else 0.0


def text_fidelity(gt: Sequence[str], pred: str) -> float:
    """1 - normalised edit distance of the prose, read in ground-truth order (see the module)."""
    return fidelity_of(counts(align_text(gt, pred)))


def reading_order(gt: Sequence[str], pred: str) -> float:
    """The share of the matched prose a reader reads in ground-truth order."""
    return order_of(counts(align_text(gt, pred)))


def text_recall(gt: Sequence[str], pred: str) -> float:
    """The share of the ground-truth prose found in the output."""
    return recall_of(counts(align_text(gt, pred)))


def text_precision(gt: Sequence[str], pred: str) -> float:
    """The share of the output's prose that is ground truth, neither invented nor repeated."""
    return precision_of(counts(align_text(gt, pred)))
