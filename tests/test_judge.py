"""tablebench.metrics.judge through litellm against a real local OpenAI-compatible server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablebench.core import llm
from tablebench.metrics import judge
from tablebench.metrics.judge import JudgeResult, judge_messages, judge_table, read_verdict
from tests.llm_server import LLMServer, Reply

GT = r"""\begin{tabular}{lcc}
\toprule
Model & Acc. & F1 \\
\midrule
Base & $71.2 \pm 0.3$ & 0.64 \\
Ours & \textbf{74.8} & 0.69 \\
\bottomrule
\end{tabular}"""
EXTRACTION = "| Model | Acc. | F1 |\n|---|---|---|\n| Base | 71.2 ± 0.3 | 0.64 |\n| Ours | 74.8 | 0.96 |"
VERDICT = json.dumps({"errors": ["The F1 value of 'Ours' reads 0.96 instead of 0.69."], "score": 7})


@pytest.fixture(scope="module")
def server() -> Iterator[LLMServer]:
    with LLMServer() as srv:
        llm.litellm_module()
        yield srv


def run(server: LLMServer, script: list[Reply], extraction: str | None = EXTRACTION, **options) -> JudgeResult:
    server.reset(script)
    return judge_table(GT, extraction, "openai/tiny-judge", api_base=server.api_base, backoff=0.001,
                       max_backoff=0.01, **options)


def test_tuned_judge_returns_score_and_errors(server: LLMServer) -> None:
    result = run(server, [Reply(content=VERDICT)])
    assert result == JudgeResult(score=7.0, errors=["The F1 value of 'Ours' reads 0.96 instead of 0.69."],
                                 error=None, cost=0.0, cached=False)
    body = server.bodies()[0]
    system, user = body["messages"]
    assert "strict evaluator" in system["content"] and "cell-to-header" in system["content"]
    assert f"at most {judge.MAX_ERRORS}" in system["content"]
    assert GT in user["content"] and EXTRACTION in user["content"]
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["errors", "score"]


@pytest.mark.parametrize("variant", ["tuned_no_cot", "naive"])
def test_score_only_variants(server: LLMServer, variant: str) -> None:
    result = run(server, [Reply(content='{"score": "8/10"}')], variant=variant)
    assert (result.score, result.errors, result.error) == (8.0, [], None)
    body = server.bodies()[0]
    assert body["response_format"]["json_schema"]["schema"]["required"] == ["score"]
    assert ("cell-to-header" in body["messages"][0]["content"]) == (variant == "tuned_no_cot")


def test_variants_have_distinct_prompts_and_cache_keys(server: LLMServer, tmp_path: Path) -> None:
    prompts = {v: judge_messages(GT, EXTRACTION, v)[0]["content"] for v in judge.VARIANTS}
    assert len(set(prompts.values())) == 3
    run(server, [Reply(content=VERDICT)], cache_dir=tmp_path)
    result = run(server, [Reply(content='{"score": 4}')], cache_dir=tmp_path, variant="tuned_no_cot")
    assert (result.score, result.cached, len(server.requests)) == (4.0, False, 1)


def test_judged_rerun_is_served_from_the_cache(server: LLMServer, tmp_path: Path) -> None:
    first = run(server, [Reply(content=VERDICT)], cache_dir=tmp_path)
    second = run(server, [Reply(content='{"errors": [], "score": 10}')], cache_dir=tmp_path)
    assert server.requests == []
    assert (second.score, second.errors, second.cached, second.cost) == (first.score, first.errors, True, 0.0)


def test_empty_extraction_scores_zero_without_a_call(server: LLMServer) -> None:
    for empty in (None, "", "  \n\t"):
        result = run(server, [Reply(content=VERDICT)], extraction=empty)
        assert (result.score, result.error, result.cost) == (0.0, None, 0.0) and result.errors == [judge.EMPTY_ERROR]
        assert server.requests == []


def test_out_of_range_score_is_retried_then_an_error(server: LLMServer, tmp_path: Path) -> None:
    result = run(server, [Reply(content='{"errors": [], "score": 12}')], format_retries=2, cache_dir=tmp_path)
    assert result.score is None and "must be a number from 0 to 10, got 12" in result.error
    assert len(server.requests) == 3 and not list(tmp_path.rglob("*.json"))
    fixed = run(server, [Reply(content='{"errors": [], "score": -1}'), Reply(content=VERDICT)])
    assert (fixed.score, len(server.requests)) == (7.0, 2)


@pytest.mark.parametrize("answer", ["Score: seven", '{"errors": []}', '{"errors": "x", "score": true}'])
def test_unusable_answer_is_retried_then_an_error_never_zero(server: LLMServer, answer: str) -> None:
    result = run(server, [Reply(content=answer)], format_retries=1)
    assert result.score is None and result.error.startswith("openai/tiny-judge: unusable answer after 2 tries")
    assert len(server.requests) == 2


def test_transport_failure_is_an_error_result(server: LLMServer) -> None:
    result = run(server, [Reply(500, "model crashed")], retries=1)
    assert result.score is None and "InternalServerError after 2 attempts" in result.error


def test_read_verdict_and_bad_arguments() -> None:
    assert read_verdict({"errors": ["a", " ", 3], "score": 6.5}) == (6.5, ["a", "3"])
    assert read_verdict({"score": "10"}, "naive") == (10.0, [])
    with pytest.raises(ValueError, match="'score' must be"):
        read_verdict({"score": float("nan")})
    with pytest.raises(ValueError, match="unknown judge variant 'strict'"):
        judge_table(GT, EXTRACTION, "openai/x", variant="strict")
    with pytest.raises(ValueError, match="ground-truth"):
        judge_table("  ", EXTRACTION, "openai/x")


def test_meta_eval_correlates_the_judge_and_reruns_from_the_cache(server: LLMServer, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from scipy import stats

    from tablebench.cli import main

    judged = {"cells A": 2, "cells B": 5, "cells C": 6, "cells D": 9, "cells E": 12}  # E: out of range, always
    humans = {"cells A": [1, 2, 2], "cells B": [6, 5, 4], "cells C": [5, 5, 6], "cells D": [9, 10, 8],
              "cells E": [3, 3, 3]}
    study = [{"gt_id": "g1", "gt_table": GT, "complexity": "simple", "extractions": [
        {"parser": "p", "extracted_table": text, "metrics": {}, "llm_scores": [], "human_scores": humans[text]}
        for text in judged]}]
    path = tmp_path / "study.json"
    path.write_text(json.dumps(study), encoding="utf-8")

    def reply(body: dict) -> Reply:
        text = body["messages"][1]["content"].split("<extraction>\n")[1].split("\n</extraction>")[0]
        return Reply(content=json.dumps({"errors": [], "score": judged[text]}))

    argv = ["meta-eval", str(path), "--metrics", "", "--json", "--bootstrap", "20", "--judge", "openai/tiny-judge",
            "--llm-api-base", server.api_base, "--llm-cache", str(tmp_path / "cache")]
    server.reset(reply)
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)["ours:judge:openai/tiny-judge"]
    assert len(server.requests) == 4 + 3  # E is re-asked twice, then left out
    xs, ys = [2, 5, 6, 9], [5 / 3, 5, 16 / 3, 9]
    assert first["n"] == 4 and first["pearson"] == pytest.approx(stats.pearsonr(xs, ys).statistic)
    server.reset(reply)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["ours:judge:openai/tiny-judge"]["pearson"] == first["pearson"]
    assert len(server.requests) == 3 and "4 from the cache" in captured.err  # only the failed pair is asked again


def test_the_declared_answer_schemas_are_valid_and_fit_a_good_answer() -> None:
    for variant, schema in judge.SCHEMAS.items():
        answer = {"errors": ["a cell is wrong"], "score": 7} if variant == "tuned" else {"score": 7}
        assert llm.validate_answer(answer, schema) == answer
        assert read_verdict(answer, variant)[0] == 7.0


def test_a_judge_listing_thousands_of_errors_keeps_a_bounded_few(server: LLMServer) -> None:
    answer = {"errors": [f"error {i}: " + "x" * 1000 for i in range(20_000)], "score": 3}  # ~20 MB as a result
    verdict = run(server, [Reply(content=json.dumps(answer))], max_answer_mb=64)  # under the cap: read whole
    assert verdict.score == 3.0 and len(verdict.errors) == judge.MAX_KEPT_ERRORS
    assert verdict.errors[0].startswith("error 0: xxx") and all(len(e) <= judge.MAX_ERROR_CHARS for e in verdict.errors)
    assert read_verdict({"errors": ["", " ", "a"], "score": 1}) == (1.0, ["a"])
