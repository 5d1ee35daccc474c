"""`report.html`: one self-contained file (inline CSS, JS and data; no network) to explore a run.

Everything that comes from a parser or a case set is untrusted. The rules this module keeps:

- text goes through `html.escape` for its context (element text or a quoted attribute);
- tables are rendered only from canonical HTML re-generated here from parsed `Table`s
  (`safe_table_html`), never from the markup stored in a result unless that markup matches the
  strict grammar of canonical HTML (table/tr/td/th, digit spans, escaped text: `_CANONICAL`);
  formulas are typeset only as MathML re-serialised through an element and attribute allowlist
  (`formula_html`);
- data for the script travels as JSON in a non-executed ``<script type="application/json">``,
  with ``<``, ``>``, ``&`` and U+2028/2029 escaped (`json_for_script`); the drill-down's cards are
  that same escaped markup, deduplicated and compressed in it (`html_data`), put in the page by
  the script only for the cards shown, through an inert template;
- no event-handler attributes: the script attaches its listeners itself;
- a Content-Security-Policy allows only our own script and style (by hash) and no network,
  so even an escaping bug could not run injected code or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence

from tablebench.core import kinds as item_kinds
from tablebench.core.completeness import of_meta
from tablebench.core.metric_specs import JUDGE, direction, specs_of
from tablebench.core.results import OUTCOMES, SCORED_LATEX, ItemResult
from tablebench.readers.html import table_from_html
from tablebench.report import fmt
from tablebench.report.aggregate import (
    BREAKDOWNS,
    Leaderboard,
    group_of,
    language_of,
    run_counts,
    variant_of,
)
from tablebench.report.cards import card_sides
from tablebench.report.crops import Crop, PictureKey, data_uri
from tablebench.report.evidence import cell_diff_html, crop_html, judge_html, output_html, page_key, page_outputs
from tablebench.report.html_assets import CSS, JS
from tablebench.report.html_bars import parser_colors
from tablebench.report.html_boards import num, ranking_html, track_html
from tablebench.report.html_data import Card, card_data
from tablebench.report.html_escape import e
from tablebench.report.html_hist import histograms_html, script_data
from tablebench.report.html_scatter import card_metrics, scatter_data, scatter_html
from tablebench.report.regressions import RegressionView, card_anchor, change_badge, regressions_html
from tablebench.report.stream import in_order, slim_of, with_page_output
from tablebench.report.verdict_counts import verdict_counts
from tablebench.report.verdicts import FAILED, change_of, delta_of, failed_html, verdict_html, verdict_label

_JSON_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                               "\u2029": "\\u2029"})
# canonical table markup: only these tags and span attributes, text with every `<` and `&` escaped;
# it cannot hold anything but a table, so the report shows it without parsing it again
_CANONICAL = re.compile(r'<table>(?:<tr>(?:<(t[dh])(?: colspan="[1-9][0-9]{0,2}")?(?: rowspan="[1-9][0-9]{0,2}")?>'
                        r"(?:[^<&]|&(?:amp|lt|gt);)*</\1>)+</tr>)+</table>")
_MAX_PRE = 20_000  # characters of matched text / LaTeX shown per table


def json_for_script(data: object) -> str:
    """JSON that is safe inside a <script> element: no `</script>`, `<!--`, or JS line terminators."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.translate(_JSON_ESCAPES)


def safe_table_html(markup: str | None) -> str:
    """Our canonical HTML (with <th> headers) of the first table in `markup`, or an escaped fallback."""
    if not markup:
        return '<p class="none">no table</p>'
    if _CANONICAL.fullmatch(markup):  # written by `Table.to_html` when scored: already what parsing would give
        return markup
    try:
        return table_from_html(markup).to_html(headers=True)
    except Exception:  # noqa: BLE001 -- untrusted input must never break the report: show it as text
        return '<p class="none">not readable as a table; as stored:</p>' + _pre(markup)


def render_html(board: Leaderboard, results: Sequence[ItemResult], meta: Mapping[str, object] | None = None,
                csp: bool = True, more: Sequence[Leaderboard] = (), regressions: RegressionView | None = None,
                crops: Mapping[PictureKey, Sequence[Crop]] | None = None,
                thumbnails: Mapping[PictureKey, Crop] | None = None) -> str:
    """The whole report page. `csp=False` drops the Content-Security-Policy (tests check the escaping alone).

    The answer first: each kind's leaderboard with its parsers' verdict counts (a row, or a
    count, shows that parser's cards below, worst first), then the failures grouped by cause,
    then `regressions` (the run against its baseline), each case linked to its card; then each
    kind's groups and breakdowns, the histograms, the run's facts and the cards. `more` are the
    leaderboards of the run's other item kinds (`aggregate.boards`); the drill-down holds every
    kind. `crops` (`tablebench.report.crops.pictures`, by kind and item) travel once per item in the
    data block, shown in their cards, as `thumbnails` of text items' pages do."""
    meta = dict(meta or {})
    title = "tablebench report" + (f" — {meta['case_set']}" if meta.get("case_set") else "")
    if regressions is not None and regressions.comparisons:
        meta.pop("gate", None)  # its lines are the section's table
    slim = slim_of(results)  # what needs no text; a run's full results are read from disk, one at a time
    outputs, texts = page_outputs(with_page_output(results))
    flat = [(key, crop) for key, item_crops in (crops or {}).items() for crop in item_crops]
    flat += list((thumbnails or {}).items())
    crop_index: dict[tuple, list[tuple[int, int]]] = {}  # (kind, *item) -> (PDF page, index in the data's crops)
    for i, (key, crop) in enumerate(flat):
        crop_index.setdefault(key, []).append((crop.page, i))
    comparisons = regressions.comparisons if regressions is not None else []
    tracks = [board, *more]
    colors = parser_colors(tracks)
    body = "".join([
        f"<h1>{e(title)}</h1>",
        _banner_html(meta, len(results)),
        *(ranking_html(track, verdict_counts([row.parser for row in track.rows], slim, comparisons, track.kind))
          for track in tracks),
        failed_html(slim, meta),
        regressions_html(regressions) if regressions is not None else "",
        *(track_html(track, colors) for track in tracks),
        scatter_html(tracks),
        histograms_html(tracks, slim),
        _meta_html(meta),
        _drilldown_html(board, slim, more),
    ])
    points = card_metrics(tracks)
    cards = card_data(_cards(board, results, more, (outputs, crop_index), texts, points), texts, points)
    data = json_for_script({**script_data(tracks, slim), "scatter": scatter_data(tracks), "colors": colors,
                            "cards": cards,
                            "crops": [data_uri(crop.webp) for _, crop in flat]})
    policy = ""
    if csp:
        policy = ('<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
                  f"script-src '{_sha256(JS)}'; style-src '{_sha256(CSS)}'; img-src data:; "
                  "base-uri 'none'; form-action 'none'\">")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"{policy}<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(title)}</title><style>{CSS}</style></head><body>{body}"
            f"<script type=\"application/json\" id=\"tb-data\">{data}</script>"
            f"<script>{JS}</script></body></html>\n")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def _banner_html(meta: Mapping[str, object], n_results: int) -> str:
    """An incomplete run says so first, loudly (`tablebench.core.completeness`)."""
    banner = of_meta(meta, n_results).banner() if meta else None
    return f'<p class="incomplete" role="alert">{e(banner)}</p>' if banner else ""


def _meta_html(meta: Mapping[str, object]) -> str:
    """The run's facts, collapsed: what was run, on what, when (the answer comes before them)."""
    if not meta:
        return ""
    items = "".join(f"<dt>{e(k)}</dt><dd>{e(fmt.meta_text(v))}</dd>" for k, v in meta.items())
    return f'<details class="run"><summary>Run facts ({len(meta)})</summary><dl class="meta">{items}</dl></details>'


def _cards(board: Leaderboard, results: Sequence[ItemResult], more: Sequence[Leaderboard],
           evidence: tuple[dict, dict], texts: Sequence[str] = (),
           points: Mapping[str, Sequence[str]] | None = None) -> Iterator[Card]:
    """Every case's card in page order (then kind, item, parser rank), as `html_data` stores them,
    with its value of each metric of its kind (`points`, for the scatter and the histograms' links;
    none when not found)."""
    rank = {row.parser: row.rank for row in board.rows}
    kind_order = {k: i for i, k in enumerate(item_kinds.names())}
    ordered = in_order(results, lambda r: (r.case_set, r.page, kind_order.get(r.kind, len(kind_order)), r.index,
                                           rank.get(r.parser, 0), r.parser))
    primaries = {track.kind: track.primary for track in reversed([board, *more])}
    cache: dict[str, str] = {}  # every parser repeats the same ground truth: each table rendered once per page
    page = None
    for r in ordered:
        if (r.case_set, r.page) != page:
            cache.clear()  # a page's tables are done (its cards are adjacent): hold one page's, not the run's
            page = (r.case_set, r.page)
        primary = primaries.get(r.kind, board.primary)
        value = r.scores.get(primary) if primary and r.outcome == "ok" else None
        found = r.outcome == "ok"
        yield Card(anchor=card_anchor(r.test_id), text=f"{r.test_id} {r.outcome} {group_of(r)}",
                   values=(r.parser, group_of(r), language_of(r), variant_of(r), r.page_break, r.outcome,
                           verdict_label(r), r.kind, change_of(r)),
                   score=None if _finite(value) is None else direction(primary).oriented(_finite(value)),  # type: ignore[arg-type]
                   delta=delta_of(r),
                   points=[_finite(r.scores.get(m)) if found else None for m in (points or {}).get(r.kind, ())],
                   parts=_by_reference(_case_parts(r, primary, cache, evidence), r, evidence[0], texts),
                   outputs=[evidence[0][page_key(r)]] if page_key(r) in evidence[0] else [])


def _finite(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _by_reference(parts: list[str], r: ItemResult, outputs: dict, texts: Sequence[str]) -> list[str]:
    """The matched text, when it is its span of the page's output, as a reference the script fills
    from that output (stored once per page): not a second, escaped copy in the card."""
    i, span, text = outputs.get(page_key(r)), r.matched_span, r.matched_text
    if (i is None or not _is_span(span) or span[0] < 0 or text is None or len(text) > _MAX_PRE
            or texts[i][span[0]:span[1]] != text):
        return parts
    ref = f'<pre class="matched" data-span="{span[0]},{span[1]}"></pre>'  # of the card's page output
    return [*parts[:2], parts[2].replace(_pre(text), ref, 1), *parts[3:]]  # the extraction's side


def _drilldown_html(board: Leaderboard, results: Sequence[ItemResult], more: Sequence[Leaderboard] = ()) -> str:
    """The controls and an empty list: the script lays out the cards shown from the data (`_cards`)."""
    tracks = [board, *more]
    levels = list(dict.fromkeys(c for track in tracks for c in track.groups))
    breakdowns = {a: list(dict.fromkeys(v for track in tracks for v in track.values(a))) for a in BREAKDOWNS}
    present = {r.outcome for r in results}
    outcomes = [o for o in OUTCOMES if o in present] + sorted(present - set(OUTCOMES))
    verdicts = sorted({verdict_label(r) for r in results}, key=lambda v: (v != FAILED, v))
    kinds = [k for k in item_kinds.names() if k in {r.kind for r in results}]
    changes = sorted({c for r in results if (c := change_of(r))}, key=lambda c: (c != "regressed", c))
    counts = run_counts(results)
    titles = [t for t in (item_kinds.get(k).title for k in item_kinds.names()) if t in counts]  # the run's kinds
    order = ('<label>order <select id="case-order"><option value="page">by page</option>'
             f'<option value="worst">worst {e(board.primary or "")} first</option>'
             f'<option value="best">best {e(board.primary or "")} first</option>'
             '<option value="delta">largest drop against the baseline first</option></select></label>')
    controls = "".join([
        '<label>search <input type="search" id="case-search" placeholder="id or text" size="24"></label>',
        _select("parser", [row.parser for row in board.rows]),
        _select("group", levels, ", ".join(dict.fromkeys(item_kinds.get(t.kind).group_title for t in tracks))),
        *(_select(a, values, fmt.breakdown_name(a)) for a, values in breakdowns.items() if values),
        _select("outcome", outcomes),
        _select("verdict", verdicts),
        *([_select("kind", kinds, names=[item_kinds.get(k).title for k in kinds])] if len(kinds) > 1 else []),
        *([_select("change", changes, "against the baseline")] if changes else []),
        order,
        f'<span class="note" id="case-count" data-unit="{e(titles[0] if len(titles) == 1 else "cases")}"></span>',
    ])
    items = " + ".join(f"{counts[t]} {t}" for t in titles)
    return (f"<h2 id=\"cases-head\">Cases ({counts['cases']}: {items} × {counts['parsers']} "
            f"parser{'s' if counts['parsers'] != 1 else ''})</h2>"
            f'<div class="controls">{controls}</div><div id="cases"></div>'
            '<button class="more" id="more" hidden>show more</button>')


def _select(name: str, values: Sequence[str], label: str | None = None, names: Sequence[str] = ()) -> str:
    options = "".join(f'<option value="{e(v)}">{e(n)}</option>' for v, n in zip(values, names or values, strict=True))
    return (f'<label>{e(label or name)} <select data-filter="{e(name)}"><option value="">all</option>'
            f"{options}</select></label>")


def _case_parts(r: ItemResult, primary: str | None, gt_cache: dict[str, str],
                evidence: tuple[dict, dict] = ({}, {})) -> list[str]:
    """A card cut where cards repeat each other: the header, each side, the evidence (`html_data`)."""
    outcome_cls, outcome = (f"o-{r.outcome}" if r.outcome in OUTCOMES else "o-other"), r.outcome
    headline = {s.headline for s in specs_of(r.kind)} | {JUDGE}
    shown = {k: v for k, v in r.scores.items() if k in headline} or r.scores
    scores = _scores_text(shown)
    rest = {k: v for k, v in r.scores.items() if k not in shown}
    subs = (f'<details class="subs"><summary>{len(rest)} sub-metrics</summary>{_scores_text(rest)}</details>'
            if rest else "")
    located = f" · <b>locate</b> {r.locate_score:.3f}" if isinstance(r.locate_score, (int, float)) else ""
    badge, reasons = verdict_html(r)
    if badge and r.outcome == "ok":  # found, yet failed (or a known failure): no green "ok" beside the verdict
        outcome_cls, outcome = "o-found", "found"
    pages = fmt.pages_text(r.pages, r.pdf_pages)  # where in its document: "page 1 → page 2"
    where = f'<span class="pages">{e(pages)}</span>' if pages else ""
    header = (f'<header><a class="id" href="#{e(card_anchor(r.test_id))}">{e(r.test_id)}</a>'
              f'{badge}<span class="badge {outcome_cls}">{e(outcome)}</span><span class="cx">{e(r.group)}</span>'
              f'{where}'
              f'{change_badge(r.baseline_change)}'
              f'<span class="scores">{scores}{located}</span></header>')
    message = reasons + (f'<p class="message">{e(r.message)}</p>' if r.message else "")
    if r.errors:
        items = "".join(f"<li>{e(err)}</li>" for err in r.errors)
        message += f'<div class="errors"><b>{e(item_kinds.get(r.kind).notes_title)}</b><ul>{items}</ul></div>'
    message += subs
    gt, pred = card_sides(r, gt_cache)
    outputs, crop_index = evidence
    shown_evidence = judge_html(r) + crop_html(r, crop_index) + cell_diff_html(r) + output_html(r, outputs)
    value = r.scores.get(primary) if primary and r.outcome == "ok" else None
    score = num(value) if isinstance(value, (int, float)) and math.isfinite(value) else ""
    return [f'<article class="case" id="{e(card_anchor(r.test_id))}" data-parser="{e(r.parser)}" '
            f'data-group="{e(group_of(r))}" '
            f'data-language="{e(language_of(r))}" data-variant="{e(variant_of(r))}" '
            f'data-page-break="{e(r.page_break)}" '
            f'data-outcome="{e(r.outcome)}" data-verdict="{e(verdict_label(r))}" data-score="{score}">{header}{message}',
            f'<div class="sides"><div class="side"><h4>ground truth</h4>{gt}</div>',
            f'<div class="side"><h4>extraction</h4>{pred}</div></div>',
            f'{f"<div class=evidence>{shown_evidence}</div>" if shown_evidence else ""}</article>']


def _scores_text(scores: dict) -> str:
    return " · ".join(f"<b>{e(k)}</b> {e(fmt.score(v, k) if isinstance(v, (int, float)) else v)}"
                      for k, v in scores.items())


def formula_sides(r: ItemResult, gt_cache: dict[str, str] | None = None) -> tuple[str, str]:
    """A formula case: the ground truth and the matched output side by side, each typeset (MathML,
    when it converts) above its escaped source (and the LaTeX that was scored, when the match was
    MathML or plain text)."""
    display = r.group == "display"
    gt = (_typeset(r.gt_latex, display) + _pre(r.gt_latex)) if r.gt_latex else '<p class="none">no ground truth</p>'
    if r.matched_text is None:
        return gt, '<p class="none">nothing matched</p>'
    scored = r.evidence.get(SCORED_LATEX)
    typeset = _typeset(scored if isinstance(scored, str) else r.matched_text, display)
    pred = typeset + matched_html(r)
    if isinstance(scored, str) and scored != r.matched_text:
        pred += f'<p class="note">scored as LaTeX</p>{_pre(scored)}'
    return gt, pred


def _typeset(latex: str, display: bool) -> str:
    """The formula as sanitised MathML (the browser typesets it), or nothing when it cannot be converted."""
    from tablebench.report.formula_html import formula_mathml

    mathml = formula_mathml(latex, display)
    return f'<div class="rendered formula">{mathml}</div>' if mathml else ""


def table_sides(r: ItemResult, gt_cache: dict[str, str]) -> tuple[str, str]:
    """A table case: both tables rendered from canonical HTML, with the LaTeX and the matched text."""
    if r.gt_html not in gt_cache:
        gt_cache[r.gt_html] = safe_table_html(r.gt_html)
    gt = f'<div class="rendered">{gt_cache[r.gt_html]}</div>'
    if r.gt_latex:
        gt += f"<details><summary>LaTeX source</summary>{_pre(r.gt_latex)}</details>"
    if r.pred_html or r.matched_text:
        key = f"pred\0{r.pred_html}"  # an extraction repeated (another parser, the same output) renders once
        if key not in gt_cache:
            gt_cache[key] = safe_table_html(r.pred_html)
        pred = f'<div class="rendered">{gt_cache[key]}</div>'
        if r.matched_text is not None:
            pred += matched_html(r)
    else:
        pred = '<p class="none">nothing matched</p>'
    return gt, pred


def matched_html(r: ItemResult) -> str:
    """The matched text with where it is in the output; an item found as several fragments (a
    table the parser split) shows each fragment's span and text, the text between left out."""
    spans = [s for s in r.fragments if _is_span(s)]
    cover = r.matched_span
    if len(spans) < 2 or not _is_span(cover) or r.matched_text is None:
        where = f" [{e(cover[0])}, {e(cover[1])})" if cover else ""
        return f'<p class="note">matched text{where}</p>{_pre(r.matched_text or "")}'
    out = [f'<p class="note">matched as {len(spans)} fragments: {e(_spans_text(spans))}</p>']
    for i, (start, end) in enumerate(spans, 1):
        piece = r.matched_text[max(0, start - cover[0]):max(0, end - cover[0])]
        out.append(f'<p class="note">fragment {i} [{e(start)}, {e(end)})</p>{_pre(piece)}')
    return "".join(out)


def _is_span(value: object) -> bool:
    """[start, end) of ints, as results.json stores spans (a hand-edited file may hold anything)."""
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


def _spans_text(spans: list[list[int]]) -> str:
    return " + ".join(f"[{a}, {b})" for a, b in spans)


def _pre(text: str) -> str:
    if len(text) > _MAX_PRE:
        text = text[:_MAX_PRE] + f"\n… ({len(text) - _MAX_PRE} more characters)"
    return f"<pre>{e(text)}</pre>"
