"""A run's judge: what each of its questions gets from the run's options, and where its answers are cached.

Why apart from the session and the page: the run decides once what bounds every judge question
(`--judge-timeout`, `--judge-max-answer`) and where it is sent (`--llm-api-base`), and whether
the judge's cache can be written at all. A read-only cache once turned the judge off without a
word (every table unjudged, exit 0); now the judge stays on, its answers are not kept, and the
run's header says so in one line (`cache_note`). `evaluate_page` keeps the answers under
`judge_cache(cache_dir)`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablebench.core.cache import ContentCache
from tablebench.core.options import RunOptions


def judge_cache(cache_dir: Path | str) -> Path:
    """Where the judge's answers are cached under a run's cache folder."""
    return Path(cache_dir) / "judge"


def judge_options(options: RunOptions) -> dict[str, Any]:
    """What every judge question of a run gets: its budget, its answer cap, the endpoint."""
    asked: dict[str, Any] = {"budget": options.judge_timeout, "max_answer_mb": options.judge_max_answer}
    if options.llm_api_base:
        asked["api_base"] = options.llm_api_base
    return asked


def cache_note(cache_dir: Path | str) -> str:
    """The header's line when the judge's cache under `cache_dir` cannot be written, else "". Asked
    in every process of a run: the probe also keeps the cache from warning about it again."""
    where = judge_cache(cache_dir)
    why = ContentCache(where).unwritable()
    return (f"tablebench: WARNING: judge cache {where} cannot be written ({why}): the judge stays on, "
            "its answers are not kept (asked again by every run)") if why else ""
