"""The evidence under a card's scores: the semantic score's cell diff, where the item sits in
the page's whole parser output, and a missing item's best candidate.

They read only what scoring stored in results (`evidence["cell_diff"]`, `page_output` on a
page's first result, the matched spans, `best_candidate`), so the report never scores
again. Everything shown is escaped; a hand-edited results.json of the wrong shape shows no diff
rather than breaking the page.
Each page's output travels once in the page's JSON data (the script highlights spans in it when
a card asks), not once per card.
"""

from __future__ import annotations

from collections.abc import Sequence

from tablebench.core import kinds as item_kinds
from tablebench.core.metric_specs import JUDGE
from tablebench.core.results import CELL_DIFF, ItemResult
from tablebench.readers.html import table_from_html
from tablebench.report.html_escape import e

_MARK = {"=": "d-eq", "~": "d-chg", "-": "d-miss"}


def page_key(r: ItemResult) -> tuple[str, str, str]:
    return (r.parser, r.case_set, r.page)


def page_outputs(results: Sequence[ItemResult]) -> tuple[dict[tuple[str, str, str], int], list[str]]:
    """({(parser, set, page): index}, [output text]): each page's output once, for the script's data."""
    index: dict[tuple[str, str, str], int] = {}
    texts: list[str] = []
    for r in results:
        text = r.page_output
        if isinstance(text, str) and page_key(r) not in index:
            index[page_key(r)] = len(texts)
            texts.append(text)
    return index, texts


def output_html(r: ItemResult, index: dict[tuple[str, str, str], int]) -> str:
    """A button that shows the page's whole output with this item's fragments highlighted (drawn
    by the script from the data block); nothing when the run kept no output for the page. A
    missing item shows its best candidate first, and highlights that in the output."""
    best = best_candidate_html(r)
    if page_key(r) not in index:
        return best
    spans = [s for s in r.fragments if _is_span(s)]
    label = "page output, matched span highlighted" if spans else "page output (nothing matched in it)"
    best_span = (r.best_candidate or {}).get("span")
    if not spans and best and _is_span(best_span):
        spans, label = [best_span], "page output, best candidate highlighted"
    spans_attr = ";".join(f"{a},{b}" for a, b in spans)
    return best + (f'<div class="output" data-out="{index[page_key(r)]}" data-spans="{e(spans_attr)}">'
            f'<button class="show-output" type="button">{e(label)}</button></div>')


def best_candidate_html(r: ItemResult) -> str:
    """A missing item's best-scoring candidate, as the locator recorded it (`ItemResult.best_candidate`):
    its score and span, the table read from it (re-rendered from parsed cells) and its text."""
    best = r.best_candidate if r.outcome == "missing" else None
    if not isinstance(best, dict) or not isinstance(best.get("text"), str):
        return ""
    score = best.get("score")
    where = f" [{best['span'][0]}, {best['span'][1]})" if _is_span(best.get("span")) else ""
    scored = f" scored {score:.3f}" if isinstance(score, (int, float)) else ""
    table = ""
    if isinstance(best.get("html"), str):
        try:
            table = f'<div class="rendered">{table_from_html(best["html"]).to_html(headers=True)}</div>'
        except Exception:  # noqa: BLE001 -- a hand-edited results.json shows the text alone
            table = ""
    cut = best.get("cut")
    more = f"\n… ({cut} more characters)" if isinstance(cut, int) and cut > 0 else ""
    return (f'<details class="best" open><summary>best candidate{e(scored)}{e(where)} '
            "(not counted as found)</summary>"
            f"{table}<pre>{e(best['text'] + more)}</pre></details>")


MAX_JUDGE_ERRORS = 10  # of a judge's error list shown in a card (the prompt asks for at most 5)
MAX_JUDGE_TEXT = 300  # characters of each


def judge_html(r: ItemResult) -> str:
    """What the LLM judge said beside its score: its own error list, or why it gave no score."""
    out = ""
    failed = r.metric_errors.get(JUDGE)
    if isinstance(failed, str) and failed:
        out += f'<p class="message judge-failed"><b>judge failed:</b> {e(failed[:MAX_JUDGE_TEXT])}</p>'
    errors = r.judge_errors
    if errors:
        shown = [str(err)[:MAX_JUDGE_TEXT] for err in errors[:MAX_JUDGE_ERRORS]]
        more = f"<li>… {len(errors) - len(shown)} more</li>" if len(errors) > len(shown) else ""
        items = "".join(f"<li>{e(err)}</li>" for err in shown)
        out += f'<div class="errors judge-errors"><b>judge\'s errors</b><ul>{items}{more}</ul></div>'
    return out


def crop_html(r: ItemResult, index: dict[tuple, list[tuple[int, int]]]) -> str:
    """Placeholders the script fills with the item's page crops (stored once per item in the
    data): one per PDF page it is on, in page order, each captioned with its page when there
    are several; an item whose kind's picture is its page (a text item), with its page's
    thumbnail. `index` is keyed by (kind, case set, page, item)."""
    crops = index.get((r.kind, r.case_set, r.page, r.index), [])
    if item_kinds.get(r.kind).picture == "page":
        return "".join(f'<figure class="crop thumb" data-crop="{i}"><figcaption class="note">the page'
                       f'{" (its first)" if r.pdf_pages > 1 else ""}: click to enlarge</figcaption></figure>'
                       for _, i in crops[:1])
    if len(crops) == 1:
        return (f'<figure class="crop" data-crop="{crops[0][1]}"><figcaption class="note">the page around the '
                f"{e(r.kind)}, where the ground truth places it</figcaption></figure>")
    return "".join(f'<figure class="crop" data-crop="{i}"><figcaption class="note">PDF page {page}: '
                   f'the {e(r.kind)} {"continued" if n else "starts"}</figcaption></figure>'
                   for n, (page, i) in enumerate(crops))


def cell_diff_html(r: ItemResult) -> str:
    """The semantic score's alignment as a table: ground-truth cells equal / changed (the
    prediction's text beside) / missing, the prediction's unpaired rows and columns as extra."""
    diff = r.evidence.get(CELL_DIFF)
    if not isinstance(diff, dict) or not isinstance(diff.get("counts"), dict):
        return ""
    try:
        counts = {k: int(diff["counts"].get(k, 0)) for k in ("equal", "changed", "missing", "extra")}
        summary = " · ".join(f'<span class="d-{k[:3]}">{n} {k}</span>' for k, n in counts.items())
        title = f"cell diff (as the semantic score aligned them): {summary}"
        if "gt" not in diff:
            note = "every cell equal" if not (counts["changed"] + counts["missing"] + counts["extra"]) \
                else "too large to show cell by cell"
            return f'<div class="diff"><p class="note">{title} — {e(note)}</p></div>'
        return (f'<details class="diff" open><summary>{title}</summary>'
                f'<div class="rendered">{_grid(diff)}</div></details>')
    except (TypeError, ValueError, KeyError, AttributeError, IndexError):
        return '<p class="none">cell diff unreadable</p>'


def _grid(diff: dict) -> str:
    cols, xcols = [str(c) for c in diff["cols"]], [str(c) for c in diff.get("xcols", [])]
    head = "".join(f"<th>{e(c)}</th>" for c in cols) + "".join(f'<th class="d-ext">{e(c)}</th>' for c in xcols)
    rows = []
    pred, extra_cols = diff.get("pred", {}), diff.get("x", {})
    for i, (texts, marks) in enumerate(zip(diff["gt"], diff["st"])):
        cells = []
        for c, (text, mark) in enumerate(zip(texts, str(marks))):
            cls = _MARK.get(mark, "")
            if mark == "~":
                inner = f'<del>{e(text)}</del> <ins>{e(pred.get(f"{i},{c}", ""))}</ins>'
            else:
                inner = e(text)
            cells.append(f'<td class="{cls}">{inner}</td>')
        cells += [f'<td class="d-ext">{e(t)}</td>' for t in extra_cols.get(str(i), [""] * len(xcols))]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    for texts in diff.get("xrows", []):
        rows.append("<tr>" + "".join(f'<td class="d-ext">{e(t)}</td>' for t in texts) + "</tr>")
    return f'<table class="celldiff"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'


def _is_span(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)
