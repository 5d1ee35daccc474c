"""The README and docs/ are true: their examples run, every figure they quote in a generated block
is what its script last wrote, their links resolve, and the README stays a guide (its two commands
are what CI runs, it is short, and it types no measured number by hand)."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import re
from pathlib import Path

import pytest

from tests.benchmarks.readme_blocks import BLOCKS, markers_in, read_block, target

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [README, *DOCS, REPO / "cases" / "README.md", REPO / "reports" / "README.md"]
MAX_README_LINES = 420


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The text under `heading` (a whole heading line) up to the next heading of the same level or higher."""
    level = heading.split(" ", 1)[0]
    body = text.split(f"\n{heading}\n", 1)[1]
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", body, re.MULTILINE)]
    return body[: ends[0]] if ends else body


def _without_code(text: str) -> str:
    """`text` with fenced code blocks blanked (headings and links inside them are not the page's)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


# -- examples -----------------------------------------------------------------------------------------


def test_the_library_example_of_the_design_page_runs() -> None:
    section = _section(_text(REPO / "docs" / "design.md"), "## The library without pytest")
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], "docs/design.md", "exec"), {})  # noqa: S102 -- our own documentation
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("synth-v1/p001::t0[pypdf] ") and len(lines) >= 2
    assert lines[-1].startswith("{'teds': ") and "'semantic': " in lines[-1]


def test_every_path_the_readme_installs_from_exists() -> None:
    paths = re.findall(r"pip install (\./\S+)", _text(README))
    assert paths, "the README shows how to install the example parser package"
    for path in paths:
        assert (REPO / path).is_dir(), path


# -- generated figures --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_every_generated_block_is_what_its_script_last_wrote(name: str) -> None:
    """A figure in a block comes only from its script (`python -m SCRIPT`), which writes its output
    (docs/*.json, docs/NAME.md) and the block; a block edited by hand, or a script rerun without
    its block, fails here."""
    script = importlib.import_module(BLOCKS[name][1])
    written = script.written_blocks()
    assert name in written, f"{BLOCKS[name][1]} does not write block {name!r}"
    block = read_block(name)
    assert block, f"block {name!r} in {BLOCKS[name][0]} is empty: run python -m {BLOCKS[name][1]}"
    assert block == written[name], f"block {name!r} in {BLOCKS[name][0]} differs from what python -m {BLOCKS[name][1]} last wrote"


def test_every_block_marker_is_a_known_block_in_its_file() -> None:
    """Markers open and close once, in order, and only where `readme_blocks.BLOCKS` says (so a block
    moved by hand to another page, or a stray copy, is caught)."""
    seen: dict[str, Path] = {}
    for path in [README, *DOCS]:
        found = markers_in(_text(path))
        for (name, opening), (name2, closing) in zip(found[::2], found[1::2], strict=True):
            assert opening and not closing and name == name2, f"{path.name}: markers of {name!r} out of order"
            assert name in BLOCKS, f"{path.name}: block {name!r} is not in readme_blocks.BLOCKS"
            assert name not in seen, f"block {name!r} in both {seen[name].name} and {path.name}"
            seen[name] = path
    assert {n: p.resolve() for n, p in seen.items()} == {n: target(n).resolve() for n in BLOCKS}


def test_every_script_writes_blocks_that_exist() -> None:
    for module in {script for _, script in BLOCKS.values()}:
        names = {name for name, (_, script) in BLOCKS.items() if script == module}
        assert set(importlib.import_module(module).written_blocks()) == names, module


def test_the_readme_types_no_measured_decimal_by_hand() -> None:
    """Outside code and generated blocks, the README's only decimals are the defaults it states,
    read from the code here (a measured figure belongs in a block its script writes)."""
    from tablebench.core.options import DEFAULT_ALPHA, DEFAULT_MIN_EFFECT, DEFAULT_TOLERANCE

    text = _without_code(_text(README))
    for name in BLOCKS:
        start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
        if start in text:
            text = text.split(start, 1)[0] + text.split(end, 1)[1]
    text = re.sub(r"`[^`]*`", "", text)
    decimals = set(re.findall(r"(?<![\w.])\d+\.\d+(?![\w.])", text))
    assert decimals <= {f"{DEFAULT_TOLERANCE:g}", f"{DEFAULT_MIN_EFFECT:g}", f"{DEFAULT_ALPHA:g}"}, decimals
    assert "default 0.01" in text and "default 0.05" in text  # the gate's defaults, as the code has them
    assert DEFAULT_MIN_EFFECT == 0.01 and DEFAULT_ALPHA == 0.05


def test_the_readme_states_the_committed_sets_as_their_manifests_count_them() -> None:
    text = _text(README)
    stated = {m[0]: (int(m[1]), int(m[2]), m[3]) for m in
              re.findall(r"`([\w-]+)`\s*\((\d+) (?:pages|documents), (\d+) (tables|formulas)", text)}
    assert set(stated) == {"synth-v1", "formulas-v1", "prose-v1", "i18n-v1", "docs-v1"}, stated
    for name, (pages, items, kind) in stated.items():
        manifest = json.loads(_text(REPO / "cases" / name / "manifest.json"))
        count = manifest["tables"] if kind == "tables" else sum(manifest["formulas"].values())
        assert (pages, items) == (manifest["pages"], count), name


# -- the guide ----------------------------------------------------------------------------------------


def test_the_readme_is_a_guide_of_at_most_420_lines() -> None:
    lines = _text(README).count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move reference material to docs/"
    for heading in ("## Two commands (fresh Debian machine)", "## Benchmark a parser", "## Write your own parser",
                    "## CI: gating, baselines, shards", "## Reading the report", "## Metrics and their validation",
                    "## Scaling out"):
        assert f"\n{heading}\n" in _text(README), heading


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    section = _section(_text(README), "## Two commands (fresh Debian machine)")
    (block,) = re.findall(r"```bash\n(.*?)```", section, re.DOTALL)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert len(commands) == 2
    bench, test = commands
    assert bench.startswith("./dev.sh bench --parser=") and "--report-only" in bench
    ci = [line.strip() for line in _text(REPO / ".ci" / "run").splitlines()
          if line.strip() and not line.lstrip().startswith(("#", "set ", "cd "))]
    assert ci == [test] == ["./dev.sh test"]


# -- links --------------------------------------------------------------------------------------------


def _slugs(text: str) -> set[str]:
    """GitHub's heading anchors of a Markdown page (lower case, punctuation dropped, spaces as
    hyphens, a repeated heading numbered)."""
    slugs: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", _without_code(text), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        candidate, n = slug, 0
        while candidate in slugs:
            n += 1
            candidate = f"{slug}-{n}"
        slugs.add(candidate)
    return slugs


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(page: Path) -> None:
    links = re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", _without_code(_text(page)))
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue  # http(s), mailto: not checked offline
        path, _, anchor = link.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: {link} -> {dest} does not exist"
        assert REPO in dest.parents or dest == REPO, f"{page.name}: {link} leaves the repository"
        if anchor:
            assert dest.suffix == ".md", f"{page.name}: {link}: an anchor into a file that is not Markdown"
            assert anchor in _slugs(_text(dest)), f"{page.name}: {link}: no heading #{anchor} in {dest.name}"
