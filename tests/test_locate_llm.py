"""tablebench.locate.llm through litellm against a real local OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebench.core import llm
from tablebench.locate.llm import locate_tables_llm, read_spans, refind
from tablebench.locate.tables import MAX_FRAGMENTS
from tests.llm_server import LLMServer, Reply

GT = [
    r"""\begin{tabular}{lcc}
\toprule
Model & Acc. & F1 \\
\midrule
Base & 71.2 & 0.64 \\
Ours & 74.8 & 0.69 \\
\bottomrule
\end{tabular}""",
    r"""\begin{tabular}{lr}
\hline
Dataset & Size \\
\hline
CIFAR-10 & 60000 \\
ImageNet & 1281167 \\
\hline
\end{tabular}""",
]
T0 = "| Model | Acc. | F1 |\n|---|---|---|\n| Base | 71.2 | 0.64 |\n| Ours | 74.8 | 0.69 |"
T1 = "| Dataset | Size |\n|---|---|\n| CIFAR-10 | 60000 |\n| ImageNet | 1281167 |"
OUTPUT = (f"# Results\n\nWe compare against the baseline in Table 1.\n\nTable 1: Accuracy.\n\n{T0}\n\n"
          f"The datasets are listed below.\n\n{T1}\n\nBoth improve.\n")


def answer(*spans: tuple[int, str | list[str]]) -> Reply:
    """The model's answer: per table one span, or a list of fragments."""
    return Reply(content=json.dumps({"tables": [{"index": i, "spans": [s] if isinstance(s, str) else s}
                                                for i, s in spans]}))


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer() as srv:
        llm.litellm_module()
        yield srv


def run(server: LLMServer, script: list[Reply], output: str = OUTPUT, **options):
    server.reset(script)
    return locate_tables_llm(GT, output, "openai/tiny-locator", api_base=server.api_base, backoff=0.001,
                             max_backoff=0.01, **options)


def test_exact_spans_are_read_as_the_output_tables(server: LLMServer) -> None:
    located = run(server, [answer((0, T0), (1, T1))])
    assert len(server.requests) == 1
    user = server.bodies()[0]["messages"][1]["content"]
    assert GT[0] in user and GT[1] in user and OUTPUT in user
    for loc, text in zip(located, (T0, T1)):
        start = OUTPUT.index(text)
        assert loc.span == (start, start + len(text)) and loc.text == text and loc.table.fmt == "markdown"
        assert loc.score > 0.9 and loc.note == "LLM locator: span quoted exactly"
    assert [c.text for c in located[1].table.rows[2]] == ["ImageNet", "1281167"]


def test_slightly_misquoted_span_is_re_found_literally(server: LLMServer) -> None:
    misquoted = T0.replace("74.8", "74.3").replace("| Base |", "| Base|").replace("|---|---|---|\n", "|---|---|---|")
    located = run(server, [answer((0, misquoted), (1, T1.replace("\n", "\n  ")))])
    assert located[0].text == T0 and "re-found at" in located[0].note  # the output's text, not the model's
    assert located[0].table.rows[2][1].text == "74.8"
    assert located[1].text == T1 and located[1].note == "LLM locator: span quoted up to whitespace"


def test_fabricated_span_is_rejected_and_asked_once_more_on_the_rest(server: LLMServer) -> None:
    invented = "| Dataset | Size |\n|---|---|\n| MNIST | 70000 |\n| SVHN | 99289 |\n| COCO | 330000 |"
    located = run(server, [answer((0, T0), (1, invented)), answer((1, "| Dataset | Images |\n| COCO | 5 |"))])
    assert len(server.requests) == 2
    second = server.bodies()[1]["messages"][1]["content"]
    assert '<table index="1">' in second and '<table index="0">' not in second
    assert T0 not in second and T1 in second  # the found table is cut from the remaining text
    assert located[0].found and not located[1].found
    assert located[1].span is None and "not in the output" in located[1].note


def test_second_request_finds_an_unmatched_table(server: LLMServer) -> None:
    located = run(server, [answer((0, T0), (1, "")), answer((1, T1))])
    assert located[1].text == T1 and "second request" in located[1].note
    assert len(server.requests) == 2


def test_plain_text_table_quoted_without_alignment_spaces(server: LLMServer) -> None:
    plain = "Dataset        Size\nCIFAR-10      60000\nImageNet    1281167"
    output = f"Intro text here.\n\n{plain}\n\nEnd."
    located = run(server, [answer((0, ""), (1, "Dataset Size\nCIFAR-10 60000\nImageNet 1281167")), answer()],
                  output=output)
    assert located[1].text == plain and located[1].table.shape[0] == 3
    assert not located[0].found


def test_rerun_is_served_from_the_cache(server: LLMServer, tmp_path: Path) -> None:
    usage: dict = {}
    first = run(server, [answer((0, T0), (1, T1))], cache_dir=tmp_path, usage=usage)
    assert usage == {"cost": 0.0, "requests": 1, "cached": 0}
    second = run(server, [answer((0, ""), (1, ""))], cache_dir=tmp_path, usage=usage)
    assert server.requests == [] and [loc.span for loc in second] == [loc.span for loc in first]
    assert usage == {"cost": 0.0, "requests": 0, "cached": 1}


def test_model_failure_falls_back_to_the_offline_locator(server: LLMServer) -> None:
    usage: dict = {}
    located = run(server, [Reply(500, "down")], retries=1, usage=usage)
    assert len(server.requests) == 2 == usage["requests"] and [loc.text for loc in located] == [T0, T1]
    assert all(loc.note.startswith("LLM locator failed (") for loc in located)
    with pytest.raises(llm.LLMError, match="InternalServerError"):
        run(server, [Reply(500, "down")], retries=0, fallback=False)


def test_empty_output_and_no_tables_make_no_request(server: LLMServer) -> None:
    located = run(server, [answer()], output="  \n")
    assert [(loc.found, loc.note) for loc in located] == [(False, "the output is empty")] * 2
    assert locate_tables_llm([], OUTPUT, "openai/x") == [] and server.requests == []


def test_refind_prefers_free_text_and_rejects_invented_text() -> None:
    text = "a | 1 | 2 |\nb\na | 1 | 2 |"
    assert refind("a | 1 | 2 |", text).start == 0
    assert refind("a | 1 | 2 |", text, [(0, 11)]).start == 14
    assert refind("zzz qqq www", text) is None
    assert refind("   ", text) is None


def test_invented_table_sharing_the_html_boilerplate_is_rejected() -> None:
    style = "<td style='text-align: center; word-wrap: break-word;'>"
    def html(rows: list[list[str]]) -> str:
        return "<table border=1>" + "".join("<tr>" + "".join(f"{style}{c}</td>" for c in r) + "</tr>"
                                            for r in rows) + "</table>"
    real = html([["Model", "Acc.", "F1"], ["Base", "71.2", "0.64"], ["Ours", "74.8", "0.69"]])
    output = f"Some prose.\n\n{real}\n\nMore prose."
    invented = html([["Dataset", "Size", "Year"], ["CIFAR", "60000", "2009"], ["SVHN", "99289", "2011"]])
    assert refind(invented, output) is None
    misquoted = real.replace("74.8", "74.3").replace("</td>", "</td> ", 2)
    hit = refind(misquoted, output)
    assert hit is not None and hit.how == "aligned" and "74.8" in output[hit.start:hit.end]


def test_read_spans_validates_the_answer() -> None:
    assert read_spans({"tables": [{"index": 0, "spans": ["x", " ", "z"]}, {"index": 7, "spans": ["y"]},
                                  {"index": "1", "spans": [" "]}]}, {0, 1}) == {0: ["x", "z"]}
    assert read_spans({"tables": [{"index": 1, "span": "one"}]}, {1}) == {1: ["one"]}  # the one-span shape
    with pytest.raises(ValueError, match="'tables' list"):
        read_spans({"spans": []}, {0})
    with pytest.raises(ValueError, match="'index' must be an integer"):
        read_spans({"tables": [{"index": "first", "spans": ["x"]}]}, {0})
    with pytest.raises(ValueError, match=f"at most {MAX_FRAGMENTS} consecutive fragments"):
        read_spans({"tables": [{"index": 0, "spans": ["a"] * (MAX_FRAGMENTS + 1)}]}, {0})


def test_read_region_keeps_tables_and_substantial_loose_lines_in_order() -> None:
    from tablebench.locate.llm import read_region
    from tablebench.locate.tables import candidates

    page = f"Prose before.\n\nTable 1: Accuracy.\n{T0}\n\nProse after."
    table = read_region(page, page.index("Table 1"), page.index(T0) + len(T0), candidates(page)[0])
    assert table.fmt == "markdown" and table.span == (page.index(T0), page.index(T0) + len(T0))  # caption left out
    mixed = "Dataset Size\nCIFAR-10 60000\nImageNet 1281167\nMNIST 70000\n| SVHN | 99289 |\n|---|---|\n| COCO | 330000 |"
    table = read_region(mixed, 0, len(mixed), candidates(mixed)[0])
    assert table.fmt == "markdown+lines" and table.span == (0, len(mixed))
    assert [row[0].text for row in table.rows][:4] == ["Dataset Size", "CIFAR-10 60000", "ImageNet 1281167", "MNIST 70000"]
    assert [c.text for c in table.rows[-1]] == ["COCO", "330000"]


def test_the_declared_span_schemas_are_valid_and_fit_a_good_answer() -> None:
    from tablebench.locate import llm_formulas
    from tablebench.locate.llm import SCHEMA

    assert llm.validate_answer({"tables": [{"index": 0, "spans": ["x", "y"]}]}, SCHEMA)
    assert llm.validate_answer({"formulas": [{"index": 0, "span": "x"}]}, llm_formulas.SCHEMA)
    with pytest.raises(ValueError, match="'spans' is a required property"):
        llm.validate_answer({"tables": [{"index": 0}]}, SCHEMA)
    with pytest.raises(ValueError, match="'span' is a required property"):
        llm.validate_answer({"formulas": [{"index": 0}]}, llm_formulas.SCHEMA)


# -- fragments: a table the parser split -----------------------------------------------------------
def _split_page() -> tuple[str, str, list[tuple[int, int]]]:
    from tests.test_locate_fragments import gt_latex, markdown, page, titles

    output, where = page([markdown(0), markdown(1)], titles(range(2)))
    return gt_latex(range(2)), output, where


def run_split(server: LLMServer, script: list[Reply], **options):
    gt, output, where = _split_page()
    server.reset(script)
    (loc,) = locate_tables_llm([gt], output, "openai/tiny-locator", api_base=server.api_base, backoff=0.001,
                               max_backoff=0.01, **options)
    return loc, output, where


def test_a_split_table_is_answered_as_fragments_each_re_found_and_joined_in_output_order(server: LLMServer) -> None:
    from tests.test_locate_fragments import markdown

    second = markdown(1).replace(" |", "   |")  # misquoted: re-found up to whitespace
    loc, output, where = run_split(server, [answer((0, [second, markdown(0)]))])  # given out of order
    assert f"at most {MAX_FRAGMENTS} pieces" in server.bodies()[0]["messages"][0]["content"]
    title = output.rindex("Alpha benchmark", 0, where[0][0]) - len("## ")  # the heading above: the table's title
    assert loc.spans == tuple(where) and loc.span == (title, where[1][1])
    assert loc.text == output[title:where[1][1]]
    assert [row[0].text for row in loc.table.rows] == ["Alpha benchmark", "Model", "alpha-net-0", "alpha-net-1", "alpha-net-2",
                                                      "Bravo benchmark", "Model", "bravo-net-0", "bravo-net-1",
                                                      "bravo-net-2"]
    assert loc.note == (f"LLM locator: span quoted up to whitespace; split table joined from 2 fragments at "
                        f"[{where[0][0]}, {where[0][1]}) + [{where[1][0]}, {where[1][1]})")


def test_an_invented_fragment_is_left_out_and_said_so(server: LLMServer) -> None:
    from tests.test_locate_fragments import markdown

    invented = "| Model | Zulu accuracy |\n|---|---|\n| zulu-net-0 | 99.99 |\n| zulu-net-1 | 98.12 |"
    loc, _, where = run_split(server, [answer((0, [markdown(0), invented]))])
    assert loc.spans == (where[0],) and "1 quoted fragment(s) not in the output, left out" in loc.note


def test_two_quotes_of_one_piece_are_one_fragment(server: LLMServer) -> None:
    from tests.test_locate_fragments import markdown

    piece = markdown(0)
    loc, _, where = run_split(server, [answer((0, [piece[: len(piece) // 2 + 20], piece[len(piece) // 2:]]))])
    assert loc.spans == (where[0],) and "fragments" not in loc.note


def test_more_fragments_than_the_bound_are_asked_again(server: LLMServer) -> None:
    from tests.test_locate_fragments import markdown

    too_many = answer((0, [markdown(0)] * (MAX_FRAGMENTS + 1)))
    loc, _, where = run_split(server, [too_many, answer((0, [markdown(0), markdown(1)]))])
    assert len(server.requests) == 2 and loc.spans == tuple(where)
    assert f"at most {MAX_FRAGMENTS} consecutive fragments" in server.bodies()[1]["messages"][-1]["content"]
