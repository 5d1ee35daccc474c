"""The text kind's added cost per page: locating the prose and every default text metric with the
card's diff, on a real page and on the worst case the issue names (a 2 MB output against a
5,000-block page), which must stay inside the parse budget.

Run: python -m pytest -p no:xdist --benchmark-only --benchmark-enable tests/benchmarks/test_bench_text_locate.py
"""

from __future__ import annotations

import random

from tablebench.cases import load_case_set
from tablebench.core.metric_specs import defaults_of, spec
from tablebench.kinds.text import KIND, GroundTruthText
from tablebench.metrics.text.alignment import _aligned
from tablebench.parse.registry import resolve

WORDS = ("model data table column figure result method value score paper layout reading order text block "
         "prose parser output page number first second third large small offline linear budget").split()


def _locate_and_score(gt: GroundTruthText, output: str) -> dict[str, float]:
    _aligned.cache_clear()  # every round aligns anew, as a new page does
    [found] = KIND.locate([gt], output)
    return KIND.score(gt, found, [spec(name) for name in defaults_of("text")]).scores


def test_bench_text_real_page(benchmark) -> None:
    page = load_case_set("synth-v1", only={"p001"}, kinds="text").pages[0]
    gt = page.items_of("text")[0]
    output = resolve("pypdf").parse(page.pdf).text
    scores = benchmark(_locate_and_score, gt, output)
    assert scores["text_recall"] > 0.95


def _huge_page(seed: int = 34) -> tuple[GroundTruthText, str]:
    """5,000 blocks of 46 words; the output holds them with words hyphenated at line ends, with a Markdown
    table after every 50th block and a running header every 100 blocks: over 2 MB."""
    rng = random.Random(seed)
    blocks = [" ".join(rng.choice(WORDS) + str(rng.randrange(100)) for _ in range(46)) + "." for _ in range(5000)]
    parts = []
    for i, block in enumerate(blocks):  # every 9th word hyphenated across a line end (read joined)
        parts.append(" ".join(f"{w[:3]}-\n{w[3:]}" if k % 9 == 8 else w for k, w in enumerate(block.split())))
        if i % 50 == 49:
            parts.append("| a | b |\n|---|---|\n" + "| 1.0 | 2.0 |\n" * 40)
        if i % 100 == 99:
            parts.append(f"Running header of page {i // 100}")
    output = "\n\n".join(parts)
    assert len(output) > 2_000_000
    return GroundTruthText(tuple(" ".join(b.split()) for b in blocks), "one_column"), output


def test_bench_text_2mb_output_5000_blocks(benchmark) -> None:
    gt, output = _huge_page()
    scores = benchmark.pedantic(_locate_and_score, args=(gt, output), rounds=3, iterations=1)
    assert scores["reading_order"] == 1.0 and scores["text_recall"] == 1.0
    assert 0.99 < scores["text_precision"] < 1.0  # the running headers are invented
