"""The offline locator: spans, formats, order, distractors, missing/split/merged tables, garbage.

Outputs are built as strings (no parser runs by default); the real data checks read
../shared: the metric study's extractions embedded among distractors, and (opt-in, -m slow)
three real parsers over the 20-page pdf-parse-bench sample.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict

import pytest

from tablebench.core.table import Table
from tablebench.locate.tables import MIN_SCORE, Located, candidates, locate_tables, profile, similarity
from tablebench.readers.latex import read_latex

PROSE = "The experiments follow the protocol of the previous section.\n\n"

GT_A = read_latex(r"""\begin{tabular}{lcc}
\toprule
Method & Accuracy & F1 \\
\midrule
Baseline & 71.2 & 0.684 \\
ResNet-50 & 76.5 & 0.731 \\
Ours & \textbf{79.8} & 0.772 \\
\bottomrule
\end{tabular}""")[0]

GT_B = read_latex(r"""\begin{tabular}{lrr}
Dataset & Train & Test \\
\hline
CIFAR-10 & 50000 & 10000 \\
ImageNet & 1281167 & 50000 \\
\end{tabular}""")[0]

GT_LONG = read_latex(r"""\begin{tabular}{ll}
Hyperparameter & Value \\
Batch size & 32 \\
Learning rate & 3e-4 \\
Warmup steps & 500 \\
Weight decay & 0.01 \\
Dropout & 0.1 \\
Optimizer & AdamW \\
Epochs & 40 \\
\end{tabular}""")[0]

MD_A = "| Method | Accuracy | F1 |\n|---|---|---|\n| Baseline | 71.2 | 0.684 |\n| ResNet-50 | 76.5 | 0.731 |\n| Ours | **79.8** | 0.772 |"
MD_B = "| Dataset | Train | Test |\n|---|---|---|\n| CIFAR-10 | 50000 | 10000 |\n| ImageNet | 1281167 | 50000 |"
HTML_A = ("<table><tr><th>Method</th><th>Accuracy</th><th>F1</th></tr><tr><td>Baseline</td><td>71.2</td>"
          "<td>0.684</td></tr><tr><td>ResNet-50</td><td>76.5</td><td>0.731</td></tr><tr><td>Ours</td>"
          "<td><b>79.8</b></td><td>0.772</td></tr></table>")
LATEX_A = ("\\begin{tabular}{lcc}\nMethod & Accuracy & F1 \\\\\nBaseline & 71.2 & 0.684 \\\\\n"
           "ResNet-50 & 76.5 & 0.731 \\\\\nOurs & 79.8 & 0.772 \\\\\n\\end{tabular}")
TEXT_A = ("Method      Accuracy   F1\nBaseline    71.2       0.684\nResNet-50   76.5       0.731\n"
          "Ours        79.8       0.772")
DISTRACTOR = "| Model | Params (M) | Time (s) |\n|---|---|---|\n| BERT-base | 110 | 3.1 |\n| GPT-2 | 124 | 4.8 |"


def _page(*blocks: str) -> tuple[str, list[tuple[int, int]]]:
    """Blocks joined by prose; returns the page and each block's literal (start, end)."""
    out, where = PROSE, []
    for block in blocks:
        where.append((len(out), len(out) + len(block)))
        out += block + "\n\n" + PROSE
    return out, where


def _check_literal(output: str, loc: Located) -> None:
    assert loc.span is not None and loc.text == output[loc.span[0]:loc.span[1]]


# -- formats and spans ----------------------------------------------------------------------
@pytest.mark.parametrize("block", [MD_A, HTML_A, LATEX_A, TEXT_A], ids=["markdown", "html", "latex", "text"])
def test_finds_the_table_with_its_exact_literal_span(block: str) -> None:
    output, [where] = _page(block)
    (loc,) = locate_tables([GT_A], output)
    assert loc.found and loc.gt_index == 0 and loc.span == where and loc.text == block
    assert loc.score > 0.8 and loc.note == ""
    assert [c.text for c in loc.table.rows[1]] == ["Baseline", "71.2", "0.684"]


def test_mixed_page_html_and_markdown_each_found_in_its_own_format() -> None:
    output, where = _page(HTML_A, MD_B)
    a, b = locate_tables([GT_A, GT_B], output)
    assert (a.span, a.table.fmt) == (where[0], "html") and (b.span, b.table.fmt) == (where[1], "markdown")


def test_plain_text_table_beside_markup_is_a_candidate() -> None:
    """A parser may write one table as Markdown and another as aligned text."""
    text_b = "Dataset     Train     Test\nCIFAR-10    50000     10000\nImageNet    1281167   50000"
    output, where = _page(MD_A, text_b)
    a, b = locate_tables([GT_A, GT_B], output)
    assert a.span == where[0] and b.span == where[1] and b.table.fmt == "text"


# -- assignment -----------------------------------------------------------------------------
def test_swapped_order_in_the_output() -> None:
    output, (where_b, where_a) = _page(MD_B, MD_A)
    a, b = locate_tables([GT_A, GT_B], output)
    assert a.gt_index == 0 and a.span == where_a
    assert b.gt_index == 1 and b.span == where_b


def test_distractor_table_is_not_chosen() -> None:
    output, (_, where_a) = _page(DISTRACTOR, MD_A)
    (loc,) = locate_tables([GT_A], output)
    assert loc.span == where_a


def test_near_duplicate_tables_go_to_the_right_ground_truth() -> None:
    """Same header, different numbers: the content score must tell them apart."""
    gt_2 = read_latex(r"""\begin{tabular}{lcc}
Method & Accuracy & F1 \\ Baseline & 64.0 & 0.602 \\ ResNet-50 & 68.9 & 0.655 \\ Ours & 73.3 & 0.701 \\
\end{tabular}""")[0]
    md_2 = ("| Method | Accuracy | F1 |\n|---|---|---|\n| Baseline | 64.0 | 0.602 |\n| ResNet-50 | 68.9 | 0.655 |\n"
            "| Ours | 73.3 | 0.701 |")
    output, (w2, wa) = _page(md_2, MD_A)
    a, b = locate_tables([GT_A, gt_2], output)
    assert a.span == wa and b.span == w2


def test_missing_table_says_why() -> None:
    output, (where_a,) = _page(MD_A)
    a, b = locate_tables([GT_A, GT_B], output)
    assert a.span == where_a
    assert (b.table, b.span, b.text) == (None, None, "") and not b.found
    assert b.score < MIN_SCORE and f"< {MIN_SCORE:.2f}" in b.note


def test_mangled_structure_still_ranks_first() -> None:
    """Merged columns and a lost row lower the score but not the rank against a distractor."""
    mangled = "| Method Accuracy | F1 |\n|---|---|\n| Baseline 71.2 | 0.684 |\n| Ours 79.8 | 0.772 |"
    output, (_, where_m) = _page(DISTRACTOR, mangled)
    (loc,) = locate_tables([GT_A], output)
    assert loc.span == where_m and MIN_SCORE <= loc.score < 0.95
    (strict,) = locate_tables([GT_A], output, min_score=0.95, loose_lines=False)
    assert not strict.found and strict.note == f"best candidate scored {loc.score:.2f} < 0.95"


def test_a_near_miss_note_names_two_different_numbers() -> None:
    """A score just under the threshold must not read as 'scored 0.30 < 0.30'."""
    mangled = "| Method Accuracy | F1 |\n|---|---|\n| Baseline 71.2 | 0.684 |\n| Ours 79.8 | 0.772 |"
    output, _ = _page(DISTRACTOR, mangled)
    (loc,) = locate_tables([GT_A], output)
    (near,) = locate_tables([GT_A], output, min_score=loc.score + 1e-6, loose_lines=False)
    best, threshold = re.fullmatch(r"best candidate scored (\S+) < (\S+)", near.note).groups()
    assert not near.found and float(best) < float(threshold)


# -- split and merged tables ----------------------------------------------------------------
def test_split_table_is_merged_back() -> None:
    first = "| Hyperparameter | Value |\n|---|---|\n| Batch size | 32 |\n| Learning rate | 3e-4 |\n| Warmup steps | 500 |"
    second = "| Weight decay | 0.01 |\n|---|---|\n| Dropout | 0.1 |\n| Optimizer | AdamW |\n| Epochs | 40 |"
    output, (w1, w2) = _page(first, second)
    (loc,) = locate_tables([GT_LONG], output)
    assert loc.span == (w1[0], w2[1]) and loc.text == output[w1[0]:w2[1]]
    assert loc.spans == (w1, w2)
    assert loc.note == f"split table joined from 2 fragments at [{w1[0]}, {w1[1]}) + [{w2[0]}, {w2[1]})"
    assert len(loc.table.rows) == 8 and loc.table.fmt == "markdown"
    alone = similarity(profile(GT_LONG), profile(candidates(first)[0][0]))
    assert loc.score > alone + 0.2


def test_split_piece_of_another_table_is_not_joined() -> None:
    output, (wa, wb) = _page(MD_A, MD_B)
    a, b = locate_tables([GT_A, GT_B], output)
    assert a.span == wa and b.span == wb and a.note == b.note == ""


def test_complete_match_does_not_swallow_a_similar_neighbour() -> None:
    """Same labels, other numbers, right after the table: joining it would only dilute the match."""
    other = ("| Method | Accuracy | F1 |\n|---|---|---|\n| Baseline | 64.0 | 0.602 |\n| ResNet-50 | 68.9 | 0.655 |\n"
             "| Ours | 73.3 | 0.701 |")
    output = MD_A + "\n\n" + other
    (loc,) = locate_tables([GT_A], output)
    assert loc.span == (0, len(MD_A)) and loc.note == ""


def test_two_merged_tables_share_one_candidate() -> None:
    fused = MD_A + "\n| Dataset | Train | Test |\n| CIFAR-10 | 50000 | 10000 |\n| ImageNet | 1281167 | 50000 |"
    output, (where,) = _page(fused)
    a, b = locate_tables([GT_A, GT_B], output)
    assert a.span == b.span == where and a.text == b.text == fused
    assert a.note == "candidate also holds t1 (merged tables)"
    assert b.note == "candidate also holds t0 (merged tables)"
    assert a.score == b.score > 0.9  # both report how well the two together explain the candidate


METALS = Table.from_rows([["Metal", "Density", "Strength"], ["Steel", "7.85", "250"], ["Aluminium", "2.70", "90"],
                          ["Titanium", "4.51", "880"], ["Copper", "8.96", "70"], ["Nickel", "8.91", "148"],
                          ["Zinc", "7.14", "37"], ["Lead", "11.34", "18"], ["Tin", "7.29", "15"]], header_rows=1)


def _markdown(rows: list[list[str]]) -> str:
    return "\n".join(["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
                     + ["| " + " | ".join(row) + " |" for row in rows[1:]])


def _rows(table: Table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.rows]


def test_a_neighbour_that_adds_almost_nothing_is_not_joined() -> None:
    """The table's first four metals, then a price list of three of its other metals: the prices
    are another table, though its names raise the score a little when joined."""
    first = _markdown(_rows(METALS)[:5])
    prices = _markdown([["Metal", "USD/kg"], ["Zinc", "2.6"], ["Lead", "2.1"], ["Tin", "25.9"]])
    output, (where, _) = _page(first, prices)
    (loc,) = locate_tables([METALS], output)
    assert loc.spans == (where,) and loc.note == ""


def test_a_table_the_candidate_holds_one_row_of_is_not_merged_into_it() -> None:
    """A candidate holds the whole metals table, then the header and the first of the five rows
    of an alloys table (the parser lost the rest): the alloys table is missing, not merged."""
    alloys = [["Alloy", "Hardness", "Melting point", "Price"], ["Brass", "100", "930", "5.1"],
              ["Bronze", "60", "950", "6.3"], ["Solder", "15", "183", "30.2"], ["Pewter", "12", "170", "12.0"],
              ["Invar", "160", "1427", "25.0"]]
    fused = _markdown(_rows(METALS)) + "\n" + "\n".join("| " + " | ".join(row) + " |" for row in alloys[:2])
    output, (where,) = _page(fused)
    metals, lost = locate_tables([METALS, Table.from_rows(alloys, header_rows=1)], output)
    assert metals.span == where and metals.note == ""
    assert not lost.found and lost.note.endswith("but fits another table better")


def test_neighbours_that_each_share_a_word_are_not_joined_into_a_missing_table() -> None:
    """Two tables on other subjects that name some of the metals, side by side: joined they still
    fall short of the minimum score, so the metals table stays missing."""
    exports = _markdown([["Country", "Export", "Year"], ["Chile", "Copper", "2019"], ["Peru", "Zinc", "2018"],
                         ["Japan", "Steel", "2020"]])
    prices = _markdown([["Metal", "Price", "Unit"], ["Cobalt", "33.0", "kg"], ["Titanium", "11.5", "kg"],
                        ["Lithium", "16.2", "kg"]])
    (loc,) = locate_tables([METALS], _page(exports, prices)[0], loose_lines=False)
    assert not loc.found and loc.spans == () and re.fullmatch(r"best candidate scored 0\.\d+ < 0\.30", loc.note)


# -- plain lines ----------------------------------------------------------------------------
def test_table_written_as_loose_lines_is_found_when_asked() -> None:
    """pypdf-like output: single spaces, no alignment; each line becomes a one-cell row."""
    lines = "Method Accuracy F1\nBaseline 71.2 0.684\nResNet-50 76.5 0.731\nOurs 79.8 0.772"
    output, (where,) = _page(lines)
    (loc,) = locate_tables([GT_A], output)
    assert loc.span == where and loc.table.fmt == "lines" and len(loc.table.rows) == 4
    assert "loose line" in loc.note
    (off,) = locate_tables([GT_A], output, loose_lines=False)
    assert not off.found and off.note == "no table candidates in the output"


def test_loose_lines_whose_subscripts_a_text_parser_spaced_out_stay_in_the_run() -> None:
    """`P 1/P 1` for the table's `P₁/P₁`: few tokens match, but the line's trigrams do."""
    gt = read_latex(r"""\begin{tabular}{ccc}
FEM & Error & CPU(s) \\
$P_{1}/P_{1}/P_{1}$ & $7.6426\times10^{-3}$ & 77 \\
$P_{2}/P_{2}/P_{2}$ & $8.1175\times10^{-5}$ & 219 \\
$P_{3}/P_{3}/P_{3}$ & $2.5152\times10^{-6}$ & 1428 \\
\end{tabular}""")[0]
    lines = ("FEM Error CPU(s)\n_P_ 1/ _P_ 1/ _P_ 1 7.6426 × 10 <sup>−3</sup> 77\n"
             "_P_ 2/ _P_ 2/ _P_ 2 8.1175 × 10 <sup>−5</sup> 219\n_P_ 3/ _P_ 3/ _P_ 3 2.5152 × 10 <sup>−6</sup> 1428")
    output, (where,) = _page(lines)
    (loc,) = locate_tables([gt], output)
    assert loc.span == where and len(loc.table.rows) == 4


def test_loose_lines_with_a_unit_beside_each_value_are_still_the_tables() -> None:
    """A text parser wrote the density's unit on every row: two of each row's five words are not
    in the table, and every row still belongs to it."""
    lines = "\n".join([" ".join(_rows(METALS)[0])] + [f"{m} {d} g/cm3 {s}" for m, d, s in _rows(METALS)[1:]])
    output, (where,) = _page(lines)
    (loc,) = locate_tables([METALS], output)
    assert loc.span == where and len(loc.table.rows) == 9


def test_a_sentence_naming_two_words_of_a_small_table_is_no_table() -> None:
    """Prose that says "Sales rose in 2021" shares a word and a year with a 3 x 2 sales table, too
    little text to be that table written as a line."""
    sales = Table.from_rows([["Year", "Sales"], ["2020", "51"], ["2021", "64"]], header_rows=1)
    (loc,) = locate_tables([sales], PROSE + "Sales rose in 2021.\n")
    assert not loc.found and loc.note == "no table candidates in the output"


# -- degenerate inputs ----------------------------------------------------------------------
def test_page_without_tables() -> None:
    output = PROSE * 5 + "A final remark on the results.\n"
    locs = locate_tables([GT_A, GT_B], output)
    assert [loc.found for loc in locs] == [False, False]
    assert all(loc.note == "no table candidates in the output" for loc in locs)


def test_empty_ground_truth_list() -> None:
    assert locate_tables([], MD_A) == []


def test_ground_truth_without_text_is_missing() -> None:
    (loc,) = locate_tables([Table.from_rows([["", ""], ["", ""]])], MD_A)
    assert not loc.found and "no text" in loc.note


GARBAGE = [
    "",
    "\x00\x01\x02\ufffd" * 200,
    "<table><tr><td>" * 50,
    "</td></tr></table>" * 20 + "<table>",
    "\\begin{tabular}{" + "l" * 30 + "}" + "& \\\\" * 100,
    "|" * 500 + "\n" + "|-|" * 100,
    "| a |\n|---|\n" * 200,
    "".join(random.Random(7).choice("ab |-\n\t<>/\\&{}") for _ in range(5000)),
    "\n".join("x  " * 40 for _ in range(60)),
    "<table><tr><td>Method<td>71.2<tr><td>Ours</td><td>0.772 | F1 |\n|---|\n| 79.8 \\\\ & Baseline",
    " ".join(random.Random(3).choice(["Method", "71.2", "Ours", "<td>", "|", "&", "\n", "F1  0.684"])
             for _ in range(400)),
]


@pytest.mark.parametrize("output", GARBAGE, ids=[f"garbage{i}" for i in range(len(GARBAGE))])
def test_garbage_output_never_crashes(output: str) -> None:
    locs = locate_tables([GT_A, GT_B], output)
    assert [loc.gt_index for loc in locs] == [0, 1]
    for loc in locs:
        assert 0.0 <= loc.score <= 1.0 and "\n" not in loc.note
        if loc.found:
            _check_literal(output, loc)
        else:
            assert loc.note


def test_bad_arguments_fail_in_one_line() -> None:
    with pytest.raises(TypeError, match="as str"):
        locate_tables([GT_A], None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_score"):
        locate_tables([GT_A], MD_A, min_score=1.5)


def test_deterministic() -> None:
    output, _ = _page(MD_B, DISTRACTOR, MD_A)
    first = locate_tables([GT_A, GT_B], output)
    assert first == locate_tables([GT_A, GT_B], output)


def test_similarity_is_symmetric_and_bounded() -> None:
    a, b = profile(GT_A), profile(GT_B)
    assert similarity(a, a) == pytest.approx(1.0)
    assert similarity(a, b) == pytest.approx(similarity(b, a))
    assert 0.0 <= similarity(a, b) < MIN_SCORE


# -- real extractions -----------------------------------------------------------------------
def test_metric_study_extractions_found_among_distractors(metric_study_dev: list[dict]) -> None:
    """Each parser's extractions of one source file's tables, in reverse order between prose:
    every table must be found in its own extraction (205 pairs of 15 real parsers)."""
    by_file: dict[str, list[dict]] = defaultdict(list)
    for record in metric_study_dev:
        by_file[record["gt_id"].split("_")[0]].append(record)
    checked, wrong = 0, []
    for name, records in sorted(by_file.items()):
        gts = [read_latex(r["gt_table"])[0] for r in records]
        for parser in sorted({e["parser"] for r in records for e in r["extractions"]}):
            texts = [next((e["extracted_table"] for e in r["extractions"] if e["parser"] == parser), "")
                     for r in records]
            output, where = _page(*texts[::-1])
            where = where[::-1]
            for loc in locate_tables(gts, output):
                if not texts[loc.gt_index].strip():
                    continue
                checked += 1
                start, end = where[loc.gt_index]
                # an unclosed extraction (cut-off HTML) may run on: it must start inside its own text
                if loc.span is None or not start <= loc.span[0] < end:
                    wrong.append(f"{name}/{parser}/t{loc.gt_index}: {loc.note or loc.span}")
    assert checked == 205
    assert not wrong, wrong


@pytest.mark.slow
def test_real_parsers_on_the_bench_sample(bench_sample_dir, tmp_path_factory, request) -> None:
    """Opt-in (-m slow, ~45 s cold): pymupdf4llm's Markdown tables are found and score well."""
    from tablebench.cases import load_case_set
    from tablebench.metrics.tables.teds import teds
    from tablebench.parse.runner import ParseRunner

    cases = load_case_set(bench_sample_dir)
    with ParseRunner("pymupdf4llm", tmp_path_factory.mktemp("parse-cache")) as runner:
        results = runner.run_many([page.pdf for page in cases.pages])
    found, markup, scores = 0, 0, []
    for page, result in zip(cases.pages, results):
        gts = [t.table for t in page.tables]
        for loc in locate_tables(gts, result.text):
            if loc.found:
                found += 1
                _check_literal(result.text, loc)
                if loc.table.fmt == "markdown":
                    markup += 1
                    scores.append(teds(gts[loc.gt_index], loc.table))
    assert cases.n_tables == 91
    assert found >= 85 and markup >= 80
    assert sum(scores) / len(scores) > 0.75
