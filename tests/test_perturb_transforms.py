"""The perturbation suite's own tools do what they claim: writers read back as the table, each
transformation changes what it names and nothing else, damage amounts are nested, the corpus
is deduplicated."""

from __future__ import annotations

import random

import pytest

from tablebench.core.table import Cell, Table
from tablebench.readers import read_tables
from tests.perturb.corpus import Corpus, collect
from tests.perturb.tables import column_paths, drop_rows
from tests.perturb.transforms import DAMAGES, INVARIANCES, LOOKALIKES, TRANSFORMS
from tests.perturb.writers import html_table, latex_table, markdown_table, plain_table


def table() -> Table:
    """A title row, two header levels (a group over repeated labels), a row span, a section row."""
    h = True
    return Table([
        [Cell("Results on two tasks", colspan=5, header=h)],
        [Cell("Family", rowspan=2, header=h), Cell("Model", rowspan=2, header=h), Cell("Task A", colspan=2, header=h),
         Cell("Time (s)", rowspan=2, header=h)],
        [Cell("Acc", header=h), Cell("F1", header=h)],
        [Cell("CNN", rowspan=2), Cell("ResNet-50"), Cell("91.2"), Cell("0.85"), Cell("12")],
        [Cell("VGG-16"), Cell("89.4"), Cell("0.81"), Cell("15")],
        [Cell("Transformers", colspan=5)],
        [Cell("Attention"), Cell("ViT-B"), Cell("93.1"), Cell("0.88"), Cell("21")],
        [Cell("Attention"), Cell("DeiT-S"), Cell("90.0"), Cell("0.83"), Cell("18")],
    ])


def run(name: str, t: Table | None = None, seed: int = 0) -> Table | str | None:
    return TRANSFORMS[name](t or table(), random.Random(seed))


@pytest.mark.parametrize("write", [lambda t: html_table(t), lambda t: html_table(t, th=False, thead=True),
                                   lambda t: latex_table(t)])
def test_span_keeping_writers_read_back_as_the_table(write) -> None:
    back = read_tables(write(table()))[0]
    assert back.text_grid(fill="") == table().text_grid(fill="")


def test_markdown_repeats_or_blanks_spans_and_flattens_headers() -> None:
    grid = table().text_grid(fill="")
    assert read_tables(markdown_table(table()))[0].text_grid(fill="") == grid
    blank = read_tables(markdown_table(table(), repeat_spans=False))[0].text_grid(fill="")
    assert blank[2][:2] == ["", ""] and blank[1][2:4] == ["Task A", ""] and blank[4][:2] == ["", "VGG-16"]
    flat = read_tables(markdown_table(table(), flat_header=True))[0].text_grid(fill="")
    assert flat[0] == ["Results on two tasks Family", "Results on two tasks Model", "Results on two tasks Task A Acc",
                       "Results on two tasks Task A F1", "Results on two tasks Time (s)"]
    assert flat[1:] == grid[3:]


def test_plain_text_aligns_columns() -> None:
    lines = plain_table(table()).splitlines()
    assert len(lines) == 8 and lines[0] == "Results on two tasks"
    assert lines[3].index("91.2") == lines[6].index("93.1")


def test_plain_text_widens_the_columns_a_wide_span_covers() -> None:
    """A span wider than its columns widens them, as a typesetter does: every later label still
    starts over its own column's values, none is pushed over the next column."""
    t = Table([[Cell("Run", header=True), Cell("Measured over two short runs", colspan=2, header=True),
                Cell("Load", header=True), Cell("Peak", header=True)],
               [Cell("a"), Cell("1"), Cell("2"), Cell("30"), Cell("40")],
               [Cell("b"), Cell("5"), Cell("6"), Cell("70"), Cell("80")]])
    head, first, _ = plain_table(t).splitlines()
    assert head.index("Load") == first.index("30") and head.index("Peak") == first.index("40")
    assert read_tables(plain_table(t))[0].text_grid(fill="")[0] == [
        "Run", "Measured over two short runs", "Measured over two short runs", "Load", "Peak"]


def test_invariances_move_or_rewrite_but_keep_every_text() -> None:
    out = run("title_out")
    assert out.startswith("Results on two tasks\n\n<table>") and out.count("Results on two tasks") == 1
    assert run("title_out", drop_rows(table(), {0})) is None
    for name in ("split_section_html", "split_section_markdown"):
        stacked = run(name)
        assert [" ".join(t.split()) for row in stacked.text_grid(fill="") for t in row if t.strip()] == \
            [t for row in table().text_grid(fill="") for t in row if t]
    glyphs = Table.from_rows([["a", "b"], ["✓", "× 2"], ["µm", "−3.1 ± 0.2"]], 1)
    assert run("glyphs", glyphs).text_grid() == [["a", "b"], ["√", "x 2"], ["μm", "-3.1 +/- 0.2"]]
    assert run("glyphs") is None and set(LOOKALIKES) >= {"◯", "✓", "×", "µ", "μ"}
    spaced = run("whitespace", seed=3)
    assert spaced != html_table(table()) and read_tables(spaced)[0].text_grid() == table().text_grid()


def _changed(a: Table, b: Table) -> set[tuple[int, int]]:
    ga, gb = a.text_grid(), b.text_grid()
    return {(r, c) for r in range(len(ga)) for c in range(len(ga[0])) if ga[r][c] != gb[r][c]}


def test_numbers_changed_are_nested_and_only_numbers() -> None:
    big = Table.from_rows([["k", "a", "b"]] + [[f"r{i}", f"{i}.5", f"{10 + i}"] for i in range(6)], 1)
    sets = [_changed(big, run(f"numbers_changed_{k}", big, seed=7)) for k in (1, 2, 4, 8)]
    assert [len(s) for s in sets] == [1, 2, 4, 8]
    assert sets[0] < sets[1] < sets[2] < sets[3] and all(r > 0 and c > 0 for r, c in sets[3])
    assert run("numbers_changed_8", Table.from_rows([["k", "a"], ["x", "1"]], 1)) is None


def test_rows_dropped_are_nested_body_rows_and_spans_shrink() -> None:
    kept = [[r[1] for r in run(f"rows_dropped_{k}", seed=2).text_grid(fill="")] for k in (1, 2, 4)]
    full = [r[1] for r in table().text_grid(fill="")]
    assert [len(full) - len(k) for k in kept] == [1, 2, 4]
    assert set(kept[0]) >= set(kept[1]) >= set(kept[2]) and kept[2][:3] == full[:3]
    one = drop_rows(table(), {3})
    assert one.text_grid()[3][:2] == ["CNN", "VGG-16"] and one.rows[3][0].rowspan == 1


def test_columns_swapped_keeps_headers_and_swaps_values_of_columns_a_reader_tells_apart() -> None:
    out = run("columns_swapped")
    diff = _changed(table(), out)
    cols = {c for _, c in diff}
    assert len(cols) == 2 and min(r for r, _ in diff) >= 3 and 0 not in cols
    paths = column_paths(table(), 3)
    a, b = sorted(cols)
    assert paths[a] != paths[b]
    same = Table.from_rows([["k", "v", "v"], ["x", "1", "2"]], 1)
    assert run("columns_swapped", same) is None


def test_header_level_lost_makes_columns_ambiguous() -> None:
    wide = Table([[Cell("M", rowspan=2, header=True), Cell("Task A", colspan=2, header=True),
                   Cell("Task B", colspan=2, header=True)],
                  [Cell("Acc", header=True), Cell("F1", header=True), Cell("Acc", header=True), Cell("F1", header=True)],
                  [Cell("x"), Cell("1"), Cell("2"), Cell("3"), Cell("4")]])
    out = run("header_level_lost", wide)
    assert out.text_grid()[0] == ["M", "Acc", "F1", "Acc", "F1"] and out.header_rows == 1
    lower = run("header_level_lost")  # without Acc / F1, Task A's two columns cannot be told apart
    assert [r[2:4] for r in lower.text_grid()[:2]] == [["Results on two tasks"] * 2, ["Task A"] * 2]
    assert run("header_level_lost", drop_rows(table(), {2})) is None  # ambiguous already: nothing to lose


def test_labels_fused_into_one_cell() -> None:
    out = run("labels_fused")
    assert len(out.rows[0]) == 1 and out.rows[0][0].colspan == 5 and out.header_rows == 1
    assert out.rows[0][0].text == "Results on two tasks Family Model Task A Time (s) Acc F1"
    assert out.text_grid()[1:] == table().text_grid()[3:]


def test_labels_fused_takes_the_header_a_reader_reads_when_the_markup_flags_only_the_title() -> None:
    t = Table([[Cell("Results", colspan=3, header=True)], [Cell("Model"), Cell("Acc"), Cell("F1")],
               [Cell("Alpha"), Cell("61.5"), Cell("0.52")], [Cell("Beta"), Cell("63.25"), Cell("0.55")]])
    out = run("labels_fused", t)
    assert out.text_grid()[0] == ["Results Model Acc F1"] * 3 and out.text_grid()[1:] == t.text_grid()[2:]


def test_every_transformation_is_named_once_and_marked() -> None:
    assert len(TRANSFORMS) == len(INVARIANCES) + len(DAMAGES)
    assert all(t.invariant for t in INVARIANCES) and not any(t.invariant for t in DAMAGES)
    families = {t.family: [] for t in DAMAGES}
    for t in DAMAGES:
        families[t.family].append(t.amount)
    assert families["numbers_changed"] == [1, 2, 4, 8] and families["rows_dropped"] == [1, 2, 4]


def test_the_corpus_counts_a_table_once() -> None:
    corpus, seen = Corpus(), set()
    for source in ("a", "b"):
        corpus.add(source, f"{source}/t0", table(), seen)
    assert len(corpus.tables) == 1 and corpus.per_source == {"a": 1, "b": 0} and corpus.duplicates == {"b": 1}
    committed = collect(None, committed_only=True)
    assert len({g.digest for g in committed.tables}) == len(committed.tables) >= 300


def test_absent_shared_sources_are_listed_with_a_reason(tmp_path) -> None:
    corpus = collect(tmp_path / "nowhere")
    assert corpus.skipped and all("absent" in why for why in corpus.skipped.values())


def test_the_report_lists_every_transformation_and_the_failures_with_examples(tmp_path) -> None:
    from tests.perturb.report import failures_markdown, write_report
    from tests.perturb.suite import run as score_all

    corpus, seen = Corpus(), set()
    corpus.add("hand", "hand/t0", table(), seen)
    records = score_all(corpus.tables, list(TRANSFORMS))
    data = write_report(tmp_path, corpus, records, 1.0)
    assert set(data["transforms"]) == set(TRANSFORMS) and data["per_source"] == {"hand": 1}
    assert data["families"]["numbers_changed"]["curve"][0]["n"] == 1
    md = (tmp_path / "perturbation.md").read_text(encoding="utf-8")
    assert all(f"| {name} |" in md for name, t in TRANSFORMS.items() if t.invariant)
    text = failures_markdown(corpus, records)
    failing = [name for name, row in data["transforms"].items() if row["fails"]]
    assert all(f"## {name}: 1 of 1 tables fail" in text for name in failing)
    assert text.count("### hand/t0") == len(failing)
