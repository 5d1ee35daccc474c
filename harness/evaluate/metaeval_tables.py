"""The table metric study in the meta-evaluation engine (`tablebench.evaluate.metaeval`).

Reads a table-metric-study-format file (a list of ground truths, each with `gt_table`
(LaTeX) and `extractions[]` holding `extracted_table`, `human_scores`, the study's stored
`metrics` and `llm_scores`), dropping empty extractions. Our scorers recompute the table
metrics from the raw LaTeX ground truth and the raw extraction through our readers.

The tuned score is the semantic score: `tablebench meta-eval FILE --cv` leaves one ground-truth
table out, chooses every constant of the score (key_weight, midpoint and the weights) on the other
tables by the procedure in `tablebench.metrics.tables.semantic_fit`, scores the held-out table's
extractions with them, and correlates the pooled held-out scores with the ratings (CIs by
resampling whole tables).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from tablebench.core.metric_specs import direction, parse_names, spec
from tablebench.core.table import NoTableError, Table
from tablebench.evaluate import metaeval
from tablebench.evaluate.metaeval import Fit, Kind, Options, RatedPair, Scorer, stored_scores
from tablebench.evaluate.progress import Progress, no_progress
from tablebench.locate.tables import locate_tables
from tablebench.metrics.judge import judge_scorer
from tablebench.metrics.tables.semantic import DEFAULT, RULES, Counting, Params, read_and_count
from tablebench.metrics.tables.semantic_fit import COUNTINGS, fit, predict
from tablebench.readers import read_tables
from tablebench.readers.latex import read_latex
from tablebench.readers.text import read_lines


def read_table_pairs(data: object, path: str) -> list[RatedPair]:
    """Every rated, non-empty extraction of one file's ground truths.

    A file without any human rating whose extractions were scored by one stored LLM judge (the
    judged pairs: parsers' outputs judged with the study's prompt) is read against that judge:
    its score stands where the human mean stands (`RatedPair.reference` says which), and it is
    not also listed as a stored score (it would correlate 1.0 with itself)."""
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of ground-truth tables")
    try:
        reference = _reference(data)
    except (AttributeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not in the table-metric-study format ({type(exc).__name__}: {exc})") from None
    pairs = []
    for n, gt in enumerate(data):
        try:
            pairs += _pairs_of(gt, reference)
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}: ground truth #{n + 1} is not in the table-metric-study format "
                             f"({type(exc).__name__}: {exc}); expected gt_table and extractions[] with "
                             "extracted_table and human_scores") from None
    if not pairs:
        raise ValueError(f"{path}: no rated, non-empty extraction found")
    return pairs


def _reference(data: list) -> str:
    """"human" when any extraction of the file has a human rating; else the one stored judge that
    scored its extractions (`judge:NAME`); "human" when there is none either (nothing is rated)."""
    judges: set[str] = set()
    for gt in data:
        for ext in (gt.get("extractions") or []) if isinstance(gt, dict) else []:
            if any(h is not None for h in ext.get("human_scores") or []):
                return "human"
            judges |= {f"judge:{j['judge_model']}" for j in ext.get("llm_scores") or [] if j.get("score") is not None}
    return judges.pop() if len(judges) == 1 else "human"


def _pairs_of(gt: dict, reference: str = "human") -> list[RatedPair]:
    """The rated, non-empty extractions of one ground truth (raises on a wrong shape)."""
    if not isinstance(gt, dict) or not isinstance(gt["gt_table"], str):
        raise TypeError("a ground truth must be an object with a string gt_table")
    pairs = []
    for ext in gt.get("extractions") or []:
        text = ext.get("extracted_table") or ""
        stored = stored_scores(ext.get("metrics"), ext.get("llm_scores"))
        if reference == "human":
            rated = [float(h) for h in ext.get("human_scores", []) if h is not None]
        else:
            rated = [stored.pop(reference)] if reference in stored else []
        if not text.strip() or not rated:
            continue
        pairs.append(RatedPair(gt_id=str(gt.get("gt_id", "")), gt=gt["gt_table"], extraction=text,
                               human=float(np.mean(rated)), stored=stored,
                               complexity=str(gt.get("complexity", "")), parser=str(ext.get("parser", "")),
                               reference=reference, page=str(gt.get("page") or "") if reference != "human" else ""))
    return pairs


def load_rated_pairs(*paths: str | Path) -> list[RatedPair]:
    """The rated pairs of one or more table-metric-study files, pooled."""
    return metaeval.load_pairs(TABLES, paths)


def recomputed_scorers(metrics: Iterable[str]) -> dict[str, Scorer]:
    """Scorers that read the raw LaTeX ground truth and raw extraction through our readers.

    An extraction in which no table can be read scores 0; with several tables, the ground
    truth is located in it as the benchmark locates it (`_read_pair`). A lower-is-better metric
    (an edit distance) is scored negated (`direction`), so that agreeing with the ratings is a
    positive correlation and it ranks among the others as it agrees.
    """
    cache: dict[tuple[str, str], dict[str, float]] = {}

    def all_scores(gt_latex: str, extraction: str) -> dict[str, float] | None:
        key = (gt_latex, extraction)
        if key not in cache:
            gt, pred = _read_pair(gt_latex, extraction)
            cache[key] = {} if pred is None else {
                k: v for name in metrics for k, v in spec(name).scorer()(gt, pred).values.items()}
        return cache[key] or None

    def make(name: str) -> Scorer:
        headline, scale = spec(name).headline, spec(name).scale
        way = direction(headline)

        def scorer(gt_latex: str, extraction: str) -> float:
            values = all_scores(gt_latex, extraction)
            return way.oriented(way.worst if values is None else values[headline]) / scale

        return scorer

    return {name: make(name) for name in metrics}


def _read_pair(gt_latex: str, extraction: str) -> tuple[Table, Table | None]:
    """The ground truth and what the benchmark would score against it: the table the offline
    locator finds in the extraction, as a run finds it (a table the extraction split into
    consecutive fragments is scored as the fragments joined; one whose rows are plain lines around
    a stray grid fragment, as those lines), else its largest table, else its lines."""
    gt = read_latex(gt_latex)[0]
    try:
        candidates = read_tables(extraction)
    except NoTableError:
        try:  # no grid: its lines, as the locator gives a table's run of plain lines
            return gt, read_lines(extraction)
        except NoTableError:
            return gt, None
    (found,) = locate_tables([gt], extraction)
    if found.table is not None:
        return gt, found.table
    return gt, max(candidates, key=lambda t: len(t.cells()))  # below the locator's floor: still scored, low


def _is_table_study(data: object) -> bool:
    return isinstance(data, list) and bool(data) and isinstance(data[0], dict) and "gt_table" in data[0]


def _check(options: Options) -> None:
    """An unknown metric name is refused before the file is read."""
    if options.metrics:
        parse_names(options.metrics, "table")


def _scorers(pairs: list[RatedPair], options: Options) -> dict[str, Scorer]:
    """Our recomputed metrics, and the LLM judge of `--judge` (every pair judged up front)."""
    scorers = recomputed_scorers(parse_names(options.metrics, "table") if options.metrics else [])
    if options.judge:
        name, scorer = judge_scorer([(p.gt, p.extraction) for p in pairs], options.judge,
                                    variant=options.judge_variant, cache_dir=options.llm_cache,
                                    api_base=options.api_base, budget=options.judge_timeout,
                                    max_answer_mb=options.judge_max_answer)
        scorers[name] = scorer
    return scorers


def semantic_features(pairs: list[RatedPair], countings: Iterable[Counting],
                      rules: frozenset[str] = RULES) -> dict[Counting, list]:
    """Per counting (`semantic.Counting`): each pair's semantic feature row (`semantic.Read.row`;
    None: no table read); `rules`: the rules the prediction is read by (all but for an ablation)."""
    read = [_read_pair(p.gt, p.extraction) for p in pairs]
    return {c: [None if pred is None else read_and_count(gt, pred, c, rules).row for gt, pred in read]
            for c in countings}


def _features(pairs: list[RatedPair], rules: frozenset[str] = RULES) -> dict[Counting, list]:
    """The features of every counting the fit tries, and of the shipped one."""
    return semantic_features(pairs, sorted({*COUNTINGS, DEFAULT.counting}), rules)


def _fit(features: dict[Counting, list], human: np.ndarray, groups: np.ndarray,
         rows: np.ndarray) -> tuple[Params, float]:
    """`semantic_fit.fit` on the `rows` pairs, each ground-truth table weighing alike."""
    grid = {c: [f for f, keep in zip(features[c], rows) if keep] for c in COUNTINGS}
    return fit(grid, human[rows], groups[rows].tolist())


def _predict(features: dict[Counting, list], params: Params, rows: np.ndarray) -> np.ndarray:
    return predict([f for f, keep in zip(features[params.counting], rows) if keep], params.vector)


def _describe(params: Params) -> dict:
    return {"key_weight": params.key_weight, "midpoint": params.midpoint,
            "weights": [round(w, 4) for w in params.weights],
            "lines_weights": [round(w, 4) for w in params.lines_weights],
            "lines_presence": [round(w, 4) for w in params.lines_presence]}


def cross_validate(pairs: list[RatedPair], n_boot: int = 1000, seed: int = 0) -> dict:
    """Leave-one-ground-truth-table-out cross-validation of the semantic score (`metaeval.cross_validate`)."""
    return metaeval.cross_validate(pairs, TABLES, n_boot, seed)


VARIED_SD = 1.0  # human ratings of a table's extractions spread at least this much: its fold's correlation means something


def cv_report(result: dict) -> str:
    """`cross_validate`'s result as a short plain-text report: pooled held-out, in-sample and
    shipped-constant correlations with their table-bootstrap CIs, scale use per complexity, folds."""
    lines = [f"Semantic score, cross-validated leaving out one unit at a time: a judged page with all its "
             f"tables, or a rated ground-truth table ({len(result['folds'])} folds, {result['cv']['n']} pairs; "
             "95% CIs resample units)", ""]
    lines.append(f"{'':<34}{'Pearson':>8} {'95% CI':>16} {'Spearman':>9} {'95% CI':>16} {'Kendall':>8}")
    for key, label in (("cv", "cross-validated (held-out units)"), ("in_sample", "in-sample (fit on all units)"),
                       ("default", "shipped constants (in-sample)")):
        r = result[key]
        lines.append(f"{label:<34}{r['pearson']:>8.3f} {_ci(r, 'pearson'):>16} {r['spearman']:>9.3f} "
                     f"{_ci(r, 'spearman'):>16} {r['kendall']:>8.3f}")
    for name, s in result.get("splits", {}).items():
        cis = (_ci(s, "pearson"), _ci(s, "spearman")) if "ci95" in s else ("", "")
        against = f", vs {s['reference']}" if s.get("reference", "human") != "human" else ""
        lines.append(f"  held-out, {name:<26}{s['pearson']:>8.3f} {cis[0]:>16} {s['spearman']:>9.3f} {cis[1]:>16} "
                     f"{s['kendall']:>8.3f}  (n={s['n']}{against})")
        if "shipped" in s:
            r = s["shipped"]
            lines.append(f"    shipped, {name:<25}{r['pearson']:>8.3f} {_ci(r, 'pearson'):>16} {r['spearman']:>9.3f} "
                         f"{_ci(r, 'spearman'):>16} {r['kendall']:>8.3f}")
    for name, s in result.get("pooled", {}).items():
        against = f", vs {s['reference']}" if s.get("reference", "human") != "human" else ""
        lines.append(f"  held-out, {name:<26}{s['pearson']:>8.3f} {_ci(s, 'pearson'):>16} {s['spearman']:>9.3f} "
                     f"{_ci(s, 'spearman'):>16} {s['kendall']:>8.3f}  (n={s['n']}{against})")
    varied = [f for f in result["folds"] if f["pearson"] is not None and f.get("human_sd", 0.0) >= VARIED_SD]
    if varied:
        weakest = min(varied, key=lambda f: f["pearson"])
        lines.append(f"  weakest fold where human ratings vary (SD >= {VARIED_SD}): {weakest['table']} "
                     f"{weakest['pearson']:.3f} ({len(varied)} of {len(result['folds'])} folds)")
    cv = result["cv"]
    lines += ["", f"held-out scale use: mean abs. error {cv['mae']:.2f}, bias {cv['bias']:+.2f} (score - human)"]
    for name, c in result["complexity"].items():
        r = "-" if c.get("pearson") is None else f"{c['pearson']:.3f} {_ci(c, 'pearson')}"
        lines.append(f"  {name:<9} n={c['n']:<4} human {c['human_mean']:.2f}  held-out {c['cv_mean']:.2f}  "
                     f"bias {c['bias']:+.2f}  MAE {c['mae']:.2f}  Pearson {r}")
    judges = sorted({j for c in result["complexity"].values() for j in c.get("judges", {})})
    if judges:  # the study's stored judges on the same pairs: how each uses the scale per complexity
        names = list(result["complexity"])
        lines += ["", "stored LLM judges' bias per complexity (judge - human), same pairs:",
                  f"  {'judge':<38}" + "".join(f"{n:>10}" for n in names)]
        for j in judges:
            row = [result["complexity"][n].get("judges", {}).get(j) for n in names]
            lines.append(f"  {j.removeprefix('judge:'):<38}" + "".join("-".rjust(10) if b is None else f"{b:>+10.2f}"
                                                                      for b in row))
    if result.get("parsers"):  # the judged pairs: each parser's agreement with the judge
        lines += ["", "judged pairs per parser (held-out score against the judge):",
                  f"  {'parser':<26}{'n':>5}{'Pearson':>9} {'95% CI':>16}{'diff':>7}"]
        for name, r in result["parsers"].items():
            lines.append(f"  {name:<26}{r['n']:>5}{r['pearson']:>9.3f} {_ci(r, 'pearson'):>16}{r['diff']:>+7.2f}")
    if result.get("cells"):  # the judged pairs: each parser's mean per complexity against the judge's
        lines += ["", "judged pairs per parser and complexity (score - judge; a leaderboard ranks by these means):",
                  f"  {'parser':<26}{'complexity':<11}{'n':>4}{'judge':>7}{'held-out':>10}{'diff':>7}{'shipped':>9}{'diff':>7}"]
        for c in result["cells"]:
            lines.append(f"  {c['parser']:<26}{c['complexity']:<11}{c['n']:>4}{c['reference_mean']:>7.2f}"
                         f"{c['cv_mean']:>10.2f}{c['cv_mean'] - c['reference_mean']:>+7.2f}"
                         f"{c['shipped_mean']:>9.2f}{c['shipped_mean'] - c['reference_mean']:>+7.2f}")
    lines += ["", f"fit on all tables: key_weight {result['params_all']['key_weight']}, midpoint "
              f"{result['params_all']['midpoint']}, weights {result['params_all']['weights']}, lines_weights "
              f"{result['params_all']['lines_weights']}, lines_presence {result['params_all']['lines_presence']}", "",
              f"{'fold (held-out unit)':<22}{'n':>4}{'key_w':>7}{'mid':>5}{'Pearson':>9}{'MAE':>6}{'bias':>7}{'hum.SD':>7}"
              "  weights"]
    for f in result["folds"]:
        r = "-" if f["pearson"] is None else f"{f['pearson']:.3f}"
        lines.append(f"{f['table']:<22}{f['n']:>4}{f['key_weight']:>7}{f['midpoint']:>5}{r:>9}{f['mae']:>6.2f}"
                     f"{f['bias']:>+7.2f}"
                     f"{f.get('human_sd', 0.0):>7.2f}  {f['weights']}")
    return "\n".join(lines)


CELL_MIN = 10  # tables a parser x complexity cell needs for its mean to be compared (fewer: too noisy)


def ablation(pairs: list[RatedPair], progress: Progress = no_progress, cell_min: int = CELL_MIN) -> list[dict]:
    """Each reading rule of the semantic score removed in turn (`semantic.RULES`), and none:
    the cross-validated Pearson of the score fitted anew without it, on the human-rated pairs
    alone (leave one table out among them) and on the judge-rated pairs (leave one table out of
    all pairs, so every fold fits on both kinds, as the shipped constants are fitted), and on the
    judged pairs the largest difference of a parser x complexity cell's mean from the judge's
    (`worst_cell`, cells of at least `cell_min` tables: a leaderboard ranks by such means). A rule
    earns its place when removing it lowers both correlations, or widens the worst cell."""
    human = np.asarray([p.human for p in pairs])
    rated = np.asarray([p.reference == "human" for p in pairs])
    judged = ~rated
    rated_pairs = [p for p, keep in zip(pairs, rated) if keep]
    out = []
    variants = [None, *sorted(RULES)]
    for n, rule in enumerate(variants):
        progress("ablation", n, len(variants))
        rules = RULES if rule is None else RULES - {rule}
        features = _features(pairs, rules)
        row: dict = {"without": rule or "(none)"}
        if rated.sum() >= 3 and len({p.gt_id for p in rated_pairs}) >= 3:
            sub = {kw: [f for f, keep in zip(v, rated) if keep] for kw, v in features.items()}
            scores, _ = metaeval.held_out_scores(rated_pairs, TABLES.fit, sub)
            row["rated"] = float(np.corrcoef(scores, human[rated])[0, 1])
        if judged.sum() >= 3:
            scores, _ = metaeval.held_out_scores(pairs, TABLES.fit, features)
            row["judged"] = float(np.corrcoef(scores[judged], human[judged])[0, 1])
            cells = [c for c in metaeval.parser_cells(pairs, scores, scores) if c["n"] >= cell_min]
            if cells:
                worst = max(cells, key=lambda c: abs(c["cv_mean"] - c["reference_mean"]))
                row["worst_cell"] = float(worst["cv_mean"] - worst["reference_mean"])
        out.append(row)
    progress("ablation", len(variants), len(variants))
    return out


def ablation_report(rows: list[dict]) -> str:
    """`ablation`'s rows as a plain-text table, each with its change against reading by every rule."""
    base = rows[0]
    lines = ["Semantic score without each reading rule in turn (cross-validated Pearson; "
             "rated: leave-one-table-out on the human-rated pairs; judged: on the judge-rated pairs, "
             f"folds fitted on all pairs; worst cell: the judged parser x complexity cell of >= {CELL_MIN} "
             "tables whose cross-validated mean is furthest from the judge's, ours - judge)", "",
             f"{'without':<18}{'rated':>8}{'change':>8}{'judged':>8}{'change':>8}{'worst cell':>12}"]
    for row in rows:
        cells = []
        for key in ("rated", "judged"):
            if key in row:
                cells.append(f"{row[key]:>8.3f}" + (f"{row[key] - base[key]:>+8.3f}" if row is not base else f"{'':>8}"))
            else:
                cells.append(f"{'-':>8}{'':>8}")
        cells.append(f"{row['worst_cell']:>+12.2f}" if "worst_cell" in row else f"{'-':>12}")
        lines.append(f"{row['without']:<18}" + "".join(cells))
    return "\n".join(lines)


def _ci(r: dict, name: str) -> str:
    lo, hi = r["ci95"][name]
    return "-" if lo is None else f"[{lo:.3f}, {hi:.3f}]"


TABLES = Kind(item="table", title="Agreement with {reference} ({n} pairs)", is_study=_is_table_study,
              read_pairs=read_table_pairs, check=_check, scorers=_scorers,
              fit=Fit(features=_features, fit=_fit, predict=_predict, describe=_describe, shipped=DEFAULT),
              drop_sparse_scorers=False, cv_report=cv_report)
