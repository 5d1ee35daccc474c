"""Fragment matching: a ground-truth table the parser split (at a section row, with a heading
between the pieces) is found as up to four consecutive fragments (`MAX_FRAGMENTS`), every fragment's span
recorded; in the offline locator, through `evaluate_page` into results, and in meta-eval.

The tables are built here (a two-or-more-section table in LaTeX and its split renderings), and
one integration test splits the committed synth-v1 ground truths; no shared data is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebench.core.table import Table
from tablebench.locate.tables import candidates, locate_tables, profile, similarity
from tablebench.readers.latex import read_latex

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
PROSE = "The results below follow the protocol of the previous section.\n\n"


def section(i: int) -> tuple[str, list[str], list[list[str]]]:
    """Section i of a table: its title, its header row and three body rows, all its own words."""
    w = WORDS[i % len(WORDS)] + (str(i // len(WORDS)) if i >= len(WORDS) else "")
    header = ["Model", f"{w.title()} accuracy", f"{w.title()} recall"]
    rows = [[f"{w}-net-{r}", f"{10 * i + r + 40}.{r}{i}", f"0.{i}{r}{(i + r) % 10}7"] for r in range(3)]
    return f"{w.title()} benchmark", header, rows


def gt_latex(sections: range) -> str:
    """One tabular of these sections, each opened by a title row spanning all columns and its header."""
    lines = [r"\begin{tabular}{lcc}", r"\toprule"]
    for n, i in enumerate(sections):
        title, header, rows = section(i)
        if n:
            lines.append(r"\midrule")
        lines += [rf"\multicolumn{{3}}{{c}}{{{title}}} \\", r"\midrule", " & ".join(header) + r" \\", r"\midrule"]
        lines += [" & ".join(row) + r" \\" for row in rows]
    return "\n".join(lines + [r"\bottomrule", r"\end{tabular}"])


def gt_table(sections: range) -> Table:
    return read_latex(gt_latex(sections))[0]


def markdown(i: int) -> str:
    _, header, rows = section(i)
    lines = ["| " + " | ".join(header) + " |", "|---|---|---|"] + ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def html(i: int, title_row: bool = False) -> str:
    """Section i as an HTML table; with `title_row`, its title as a first row spanning all columns."""
    title, header, rows = section(i)
    head = f'<tr><th colspan="3">{title}</th></tr>' if title_row else ""
    head += "<tr>" + "".join(f"<th>{h}</th>" for h in header) + "</tr>"
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table>{head}{body}</table>"


def page(blocks: list[str], headings: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """Prose, then each block after its heading line; the page and each block's literal span."""
    out, where = PROSE, []
    for heading, block in zip(headings, blocks):
        out += f"{heading}\n\n"
        where.append((len(out), len(out) + len(block)))
        out += block + "\n\n"
    return out + PROSE, where


def titles(sections: range, mark: str = "## ") -> list[str]:
    return [mark + section(i)[0] for i in sections]


# -- the offline locator ----------------------------------------------------------------------
def test_markdown_table_split_at_a_section_row_is_found_as_two_fragments() -> None:
    output, where = page([markdown(0), markdown(1)], titles(range(2)))
    (loc,) = locate_tables([gt_table(range(2))], output)
    assert loc.found and loc.spans == tuple(where)
    title = output.rindex(titles(range(1))[0], 0, where[0][0])  # the heading above: its title, in its span
    assert loc.span == (title, where[1][1]) and loc.text == output[title:where[1][1]]
    (a, b), (c, d) = where
    assert loc.note == f"split table joined from 2 fragments at [{a}, {b}) + [{c}, {d})"
    # output order; the heading between the halves, which the ground truth holds, joins as a section row
    # over the table's width; the second header row stays a row
    firsts = [row[0].text for row in loc.table.rows]
    # and so does the heading above the first half: the table's title, set outside it
    assert firsts == ["Alpha benchmark", "Model", "alpha-net-0", "alpha-net-1", "alpha-net-2", "Bravo benchmark",
                      "Model", "bravo-net-0", "bravo-net-1", "bravo-net-2"]
    assert loc.table.rows[5][0].colspan == 3 and loc.table.rows[0][0].colspan == 3
    alone = similarity(profile(gt_table(range(2))), profile(candidates(output)[0][0]))
    assert loc.score > alone + 0.2


def test_html_table_split_with_its_title_rows_keeps_them_as_rows() -> None:
    blocks = [html(0, title_row=True), html(1, title_row=True)]
    output, where = page(blocks, ["<p>Table 3: results.</p>", "<h3>continued</h3>"])
    (loc,) = locate_tables([gt_table(range(2))], output)
    assert loc.spans == tuple(where) and loc.table.fmt == "html"
    firsts = [row[0].text for row in loc.table.rows]
    assert firsts[:2] == ["Alpha benchmark", "Model"] and firsts[5:7] == ["Bravo benchmark", "Model"]
    assert len(loc.table.rows) == 10


def test_a_split_into_four_fragments_is_joined_whole() -> None:
    sections = range(4)
    output, where = page([markdown(i) for i in sections], titles(sections))
    (loc,) = locate_tables([gt_table(sections)], output)
    assert loc.spans == tuple(where)


def test_a_split_into_five_fragments_is_joined_from_four_of_them() -> None:
    sections = range(5)
    output, where = page([markdown(i) for i in sections], titles(sections))
    (loc,) = locate_tables([gt_table(sections)], output)
    assert len(loc.spans) == 4
    first = where.index(loc.spans[0])
    assert list(loc.spans) == where[first:first + 4]  # a consecutive run of the pieces
    assert "joined from 4 fragments" in loc.note


def test_two_ground_truth_tables_adjacent_in_the_output_are_not_joined() -> None:
    """Each section is its own ground truth here: same header words, next to each other."""
    output, where = page([markdown(0), markdown(1)], titles(range(2)))
    a, b = locate_tables([gt_table(range(1)), gt_table(range(1, 2))], output)
    assert (a.spans, b.spans) == ((where[0],), (where[1],)) and a.note == b.note == ""


def test_a_run_of_fragments_never_crosses_another_ground_truths_table() -> None:
    """Piece one of a table, another ground truth's table, piece two: the run stops at the other table."""
    output, where = page([markdown(0), markdown(2), markdown(1)], titles([0, 2, 1]))
    split, other = locate_tables([gt_table(range(2)), gt_table(range(2, 3))], output)
    assert other.spans == (where[1],)
    assert len(split.spans) == 1 and split.spans[0] in (where[0], where[2])


# -- through evaluate_page into results ----------------------------------------------------------
def _split_rows(table: Table) -> int:
    """A row boundary near the middle that no rowspan crosses (0: none)."""
    ends = [0] * (len(table.rows) + 1)
    for r, row in enumerate(table.rows):
        for cell in row:
            ends[r] = max(ends[r], r + cell.rowspan)
    reach, ok = 0, []
    for r in range(len(table.rows) - 1):
        reach = max(reach, ends[r])
        if reach <= r + 1:
            ok.append(r + 1)
    middle = len(table.rows) / 2
    return min(ok, key=lambda b: (abs(b - middle), b)) if ok else 0


def test_split_tables_of_a_real_page_score_as_whole_and_results_record_the_spans(tmp_path: Path) -> None:
    from tablebench.cases import load_case_set
    from tablebench.evaluate.page import evaluate_page
    from tests.ci_cases import case_set

    cases = load_case_set(case_set(tmp_path / "set", 1))
    (pg,) = cases.pages
    parts, split = [], set()
    for t in pg.tables:
        cut = _split_rows(t.table)
        pieces = [Table(t.table.rows[:cut]), Table(t.table.rows[cut:])] if cut else [t.table]
        split |= {t.index} if cut else set()
        parts.append(f"Paragraph before table {t.index}.\n\n"
                     + "\n\n**(continued)**\n\n".join(p.to_html() for p in pieces) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    text = "\n".join(parts)
    (out / f"{pg.pdf.stem}.md").write_text(text, encoding="utf-8")
    assert len(split) >= 4
    results = evaluate_page(pg, f"dir:{out}", "teds", cache_dir=tmp_path / "cache")
    for r in results:
        assert r.outcome == "ok" and r.scores["teds"] == 1.0, (r.index, r.message)
        assert len(r.matched_spans) == (2 if r.index in split else 1)
        assert r.matched_span == [r.matched_spans[0][0], r.matched_spans[-1][1]]
        assert all(text[a:b].startswith("<table>") and text[a:b].endswith("</table>") for a, b in r.matched_spans)
        assert ("joined from 2 fragments" in r.message) == (r.index in split)
    from tablebench.core.results import ItemResult

    back = ItemResult.from_dict(results[0].to_dict())
    assert back.matched_spans == results[0].matched_spans
    old = {k: v for k, v in results[0].to_dict().items() if k != "matched_spans"}  # a results.json from before
    assert ItemResult.from_dict(old).fragments == [results[0].matched_span]


# -- meta-eval ------------------------------------------------------------------------------------
def test_meta_eval_scores_a_split_extraction_as_the_joined_fragments() -> None:
    from tablebench.core.metric_specs import spec
    from tablebench.evaluate.metaeval_tables import recomputed_scorers
    from tablebench.locate.tables import attached_lines, join_fragments

    latex = gt_latex(range(2))
    extraction = "\n\n".join(f"{t}\n\n{markdown(i)}" for i, t in enumerate(titles(range(2))))
    semantic = recomputed_scorers(["semantic"])["semantic"]
    pieces = candidates(extraction)[0]
    assert len(pieces) == 2
    gt = gt_table(range(2))
    headline, scale = spec("semantic").headline, spec("semantic").scale
    lines = attached_lines(pieces, extraction, profile(gt))
    whole = spec("semantic").scorer()(gt, join_fragments(pieces, extraction, lines)).values[headline] / scale
    stacked = spec("semantic").scorer()(gt, join_fragments(pieces)).values[headline] / scale
    largest = max(spec("semantic").scorer()(gt, p).values[headline] / scale for p in pieces)
    assert semantic(latex, extraction) == pytest.approx(whole)
    assert whole > stacked > largest  # the heading between the halves read as their section label


def test_a_title_set_as_a_heading_above_the_table_is_its_title_row_a_caption_is_not() -> None:
    gt = read_latex(r"""\begin{tabular}{lcc}\multicolumn{3}{c}{Sensor trial} \\ \hline
Device & Cheap & Robust \\ \hline a & 1.0 & 2.0 \\ b & 3.0 & 4.0 \\ \end{tabular}""")[0]
    body = "| Device | Cheap | Robust |\n|---|---|---|\n| a | 1.0 | 2.0 |\n| b | 3.0 | 4.0 |"
    (loc,) = locate_tables([gt], f"{PROSE}**Sensor trial**\n\n{body}\n\n{PROSE}")
    assert [row[0].text for row in loc.table.rows][:2] == ["Sensor trial", "Device"]
    assert loc.text == f"**Sensor trial**\n\n{body}"  # what is scored is the text of the span: the title is in it
    (loc,) = locate_tables([gt], f"{PROSE}Table 3: results of the trial.\n\n{body}\n\n{PROSE}")
    assert loc.table.rows[0][0].text == "Device"


def test_title_lines_set_above_the_table_join_it_as_its_title_rows() -> None:
    """A title over a subtitle, set as two lines above the table: both are its title rows (moved,
    not lost), read upwards from the table to the first line that is no title of it."""
    gt = read_latex(r"""\begin{tabular}{lr}
\multicolumn{2}{c}{Annual rainfall} \\
\multicolumn{2}{c}{coastal stations} \\ \midrule
Station & mm \\ \midrule
Harbour & 760 \\
Lighthouse & 2250 \\
\end{tabular}""")[0]
    output = (PROSE + "The figures below are yearly sums.\nAnnual rainfall\ncoastal stations\n\n"
              "| Station | mm |\n|---|---|\n| Harbour | 760 |\n| Lighthouse | 2250 |\n")
    (loc,) = locate_tables([gt], output)
    assert [row[0].text for row in loc.table.rows[:3]] == ["Annual rainfall", "coastal stations", "Station"]
    assert loc.table.rows[0][0].colspan == 2
    assert loc.span[0] == output.index("Annual rainfall")


def test_a_page_number_above_the_table_is_no_title_row() -> None:
    """A bare number set above a table (a page number, a note mark) names nothing, even when its
    digits occur in the ground truth (here in an exponent): it does not join as a title row."""
    gt = read_latex(r"""\begin{tabular}{lr}\hline
Quantity & Value \\ \hline
Rate [s$^{-1}$] & 0.25 \\
Mass [kg] & 7 \\ \hline
\end{tabular}""")[0]
    body = "| Quantity | Value |\n|---|---|\n| Rate [s-1] | 0.25 |\n| Mass [kg] | 7 |"
    for mark in ("1", "7", "(1)"):
        (loc,) = locate_tables([gt], f"{mark}\n\n{body}\n\n{PROSE}")
        assert loc.table.rows[0][0].text == "Quantity", mark
