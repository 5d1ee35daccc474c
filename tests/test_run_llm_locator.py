"""`evaluate_page(locator="llm")` against a local OpenAI-compatible server, through litellm."""

from __future__ import annotations

import json
import re

from tablebench.evaluate.page import evaluate_page
from tests.llm_server import LLMServer, Reply
from tests.test_run import cases, pool, write_outputs  # noqa: F401 — module fixtures


def _quoting_server(outputs: dict[str, str]):
    """Answers each locate request by quoting every table of the page's output verbatim."""

    def respond(body: dict) -> Reply:
        user = body["messages"][-1]["content"]
        indices = [int(i) for i in re.findall(r'<table index="(\d+)">', user)]
        text = next(t for t in outputs.values() if t.strip() and t.strip() in user)
        bodies = [part.split("\n\n", 1)[1].strip() for part in text.split("Prose before table ")[1:]]
        return Reply(content=json.dumps({"tables": [{"index": i, "spans": [bodies[i]]} for i in indices]}))

    return LLMServer(respond)


def test_llm_locator_finds_quoted_spans_and_a_rerun_is_cached(cases, pool, tmp_path):  # noqa: F811
    out = write_outputs(tmp_path / "out", cases)
    outputs = {p.pdf.stem: (out / f"{p.pdf.stem}.md").read_text(encoding="utf-8") for p in cases.pages}
    page = cases.pages[0]
    with _quoting_server(outputs) as server:
        run = lambda: evaluate_page(page, f"dir:{out}", "teds", cache_dir=tmp_path / "cache", pool=pool,  # noqa: E731
                                    locator="llm", locator_model="openai/tiny-locator",
                                    judge_options={"api_base": server.api_base})
        results = run()
        assert len(server.requests) == 1
        assert [r.outcome for r in results] == ["ok"] * len(page.tables)
        assert all(r.scores["teds"] == 1.0 for r in results)
        text = outputs[page.pdf.stem]
        assert all(text[r.matched_span[0]:r.matched_span[1]] == r.matched_text for r in results)
        again = run()
        assert [(r.scores, r.matched_span) for r in again] == [(r.scores, r.matched_span) for r in results]
        assert len(server.requests) == 1, "the rerun is served from the cache"


def test_unknown_locator_is_a_clear_error(cases, pool, tmp_path):  # noqa: F811
    import pytest

    out = write_outputs(tmp_path / "out", cases)
    with pytest.raises(ValueError, match="locator"):
        evaluate_page(cases.pages[0], f"dir:{out}", "teds", cache_dir=tmp_path / "cache", pool=pool, locator="psychic")


def test_a_slow_model_costs_the_llm_locator_the_pages_budget_only(cases, pool, tmp_path):  # noqa: F811
    """A model that never answers cost 7 min 38 s a page at a 20 s page budget (each request its
    own 120 s, retried): the page's requests now share the page's budget, as offline locating does."""
    out = write_outputs(tmp_path / "out", cases)
    page = cases.pages[0]
    with LLMServer([Reply(content="{}", delay=3600)]) as server:
        results = evaluate_page(page, f"dir:{out}", "teds", cache_dir=tmp_path / "cache", pool=pool, timeout=3.0,
                                locator="llm", locator_model="openai/tiny-locator",
                                judge_options={"api_base": server.api_base})
        assert len(server.requests) == 1
    assert [(r.outcome, r.message) for r in results] == [
        ("timeout", "timeout: locating tables in the output took longer than 3 s")] * len(page.tables)
