"""One name per option wherever it is given: `tablebench` subcommands name an option as the pytest
plugin does (`--gate-alpha`, `--gate-min-effect`, `--llm-api-base`); an old name still works and
says once, on stderr, which name to use."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from tablebench.cli import _merge_parser, build_parser, main
from tablebench.report.write import write_report
from tests.test_plugin import PLUGIN
from tests.test_report_samples import sample_results

pytest_plugins = ["pytester"]

# option -> its old names: what the plugin calls it, and what a subcommand used to
RENAMED = {"--gate-alpha": ["--alpha"], "--gate-min-effect": ["--min-effect"],
           "--llm-api-base": ["--api-base", "--judge-api-base"]}


def _visible_options(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    """{subcommand: option names its --help shows}, every subcommand of `tablebench` and `report merge`."""
    out = {"report merge": set()}
    for action in _merge_parser()._actions:
        if action.help != argparse.SUPPRESS:
            out["report merge"].update(action.option_strings)
    stack = [("", parser)]
    while stack:
        name, p = stack.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                stack += [(f"{name} {sub}".strip(), child) for sub, child in action.choices.items()]
            elif action.help != argparse.SUPPRESS:
                out.setdefault(name, set()).update(action.option_strings)
    return out


def _plugin_options(pytester: pytest.Pytester) -> set[str]:
    text = pytester.runpytest(*PLUGIN, "--help").stdout.str()
    return {word.split("=")[0].rstrip(",") for word in text.split() if word.startswith("--")}


def test_every_command_names_an_option_as_the_plugin_does(pytester: pytest.Pytester) -> None:
    plugin = _plugin_options(pytester)
    shown = _visible_options(build_parser())
    for new, old in RENAMED.items():
        assert new in plugin and not set(old) & plugin, (new, old)
        for command, names in shown.items():
            assert not set(old) & names, f"tablebench {command} shows {old}: the plugin calls it {new}"
    assert {"--gate-alpha", "--gate-min-effect"} <= shown["compare"] <= shown["compare"] | plugin
    assert {"--llm-api-base", "--judge-timeout", "--judge-max-answer"} <= shown["meta-eval"] & plugin


def test_every_option_the_plugin_shows_is_a_row_of_the_reference(pytester: pytest.Pytester) -> None:
    """docs/reference.md's option table names every option `pytest --help` lists under tablebench."""
    lines = pytester.runpytest(*PLUGIN, "--help").stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("tablebench: benchmark"))
    end = next(i for i in range(start + 1, len(lines)) if re.match(r"\S.*:$", lines[i]))
    shown = {m.group(1) for line in lines[start + 1:end] if (m := re.match(r"  (--[a-z-]+)", line))}
    text = (Path(__file__).resolve().parents[1] / "docs" / "reference.md").read_text(encoding="utf-8")
    table = text[text.index("| option | meaning |"):].split("\n\n")[0]
    assert len(shown) > 30 and "--judge-max-answer" in shown, shown
    assert not [o for o in sorted(shown) if not re.search(re.escape(o) + r"(?![\w-])", table)]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    root = tmp_path_factory.mktemp("runs")
    results = sample_results(n_pages=6)
    write_report(results, root / "a", {"case_set": "s"})
    return f"{root / 'a'}:pymupdf4llm", f"{root / 'a'}:pdfplumber"


def test_compare_takes_the_gate_s_names_and_its_old_ones_with_one_line_each(two_runs, capsys) -> None:
    a, b = two_runs
    assert main(["compare", a, b, "--metrics", "teds"]) == 0
    assert "REGRESSION" in capsys.readouterr().out  # B drops teds by 0.55
    assert main(["compare", a, b, "--metrics", "teds", "--gate-alpha", "0.2", "--gate-min-effect", "0.9"]) == 0
    now = capsys.readouterr()
    assert "REGRESSION" not in now.out and now.err == "", "a drop below the minimum effect is no regression"
    assert main(["compare", a, b, "--metrics", "teds", "--alpha", "0.2", "--min-effect=0.9"]) == 0
    old = capsys.readouterr()
    assert old.out == now.out, "the old names mean what the new ones mean"
    assert old.err.splitlines() == ["tablebench: --alpha is deprecated; use --gate-alpha",
                                    "tablebench: --min-effect is deprecated; use --gate-min-effect"]
    assert main(["compare", a, b, "--gate-alpha", "nan"]) == 1
    assert capsys.readouterr().err == "tablebench: error: --gate-alpha must be a finite number > 0 and <= 0.5, got 'nan'\n"


def test_meta_eval_takes_llm_api_base_and_its_old_name(tmp_path: Path, capsys) -> None:
    args = build_parser().parse_args(["meta-eval", "f.json", "--llm-api-base", "http://a:1/v1"])
    assert args.llm_api_base == "http://a:1/v1"
    old = build_parser().parse_args(["meta-eval", "f.json", "--api-base", "http://a:1/v1"])
    assert old.llm_api_base == "http://a:1/v1"
    assert main(["meta-eval", str(tmp_path / "absent.json"), "--api-base", "http://a:1/v1"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "tablebench: --api-base is deprecated; use --llm-api-base" and len(err) == 2
    assert err[1].startswith("tablebench: error: ")


def test_the_plugin_s_old_judge_api_base_works_and_says_its_new_name_once(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("def pytest_configure(config):\n"
                          "    print('api base:', config.getoption('tb_judge_api_base'))\n")
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    old = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider", "--judge-api-base=http://a:1/v1", "-s")
    assert old.ret == 0
    assert "api base: http://a:1/v1" in old.stdout.str()
    assert old.stderr.lines.count("tablebench: --judge-api-base is deprecated; use --llm-api-base") == 1
    new = pytester.runpytest_subprocess(*PLUGIN, "-p", "no:cacheprovider", "--llm-api-base=http://a:1/v1", "-s")
    assert new.ret == 0 and "api base: http://a:1/v1" in new.stdout.str() and "deprecated" not in new.stderr.str()


@pytest.mark.parametrize("argv", [["--help"], []], ids=["help", "no-arguments"])
def test_the_help_starts_with_how_to_run_a_benchmark(argv: list[str], capsys) -> None:
    """A newcomer's first question is how to benchmark a parser: that is pytest, not a subcommand,
    so the help says it first, before the subcommands."""
    with pytest.raises(SystemExit) as ended:
        raise SystemExit(main(argv))
    assert ended.value.code == (0 if argv else 2)
    lines = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert "pytest --parser=" in lines[0] or "pytest --parser=" in lines[1], lines[:3]
    first_bench = next(i for i, line in enumerate(lines) if "pytest --parser=" in line)
    first_command = next(i for i, line in enumerate(lines) if line.split()[:1] == ["compare"])
    assert first_bench < first_command
    assert any("./dev.sh bench --parser=" in line for line in lines[:first_command])


def test_a_subcommand_s_help_is_its_own(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    assert capsys.readouterr().out.startswith("usage: tablebench compare")
