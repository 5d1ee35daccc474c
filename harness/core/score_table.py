"""A score's constants as rows in code: what each is, its value, how it was chosen, the test that pins it.

Why rows and not prose: a constant that changes a score is a decision, and a decision written only
in a docs page drifts from the code. Each score keeps its rows beside its code (`ScoreRow`); the
docs' table is rendered from them (`render`: the value read from the module, never typed twice), a
test holds the docs to the rendering and every module-level constant of the score's modules to a
row, and the mutation run (`tests.benchmarks.mutations`) changes each row's constant to its
`mutant` value and expects its test to fail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from importlib import import_module

from tablebench.core.markdown_table import markdown_table


@dataclass(frozen=True)
class ScoreRow:
    """One constant of a score."""

    module: str  # where it is defined ("tablebench.metrics.text.alignment")
    name: str  # its name there ("WINDOW"; "DEFAULT.midpoint": an attribute of a module's object)
    meaning: str  # what it decides, in words
    chosen: str  # how its value was chosen: fitted (and by what), or why a bound sits where it does
    test: str  # "tests/test_x.py::test_y": a test that fails when the value changes
    mutant: str  # a value the mutation run sets instead (as Python source)
    assigned: str = ""  # the left side of the source line that sets it, when not `name` ("    midpoint: float")

    @property
    def value(self) -> object:
        """The value the code has."""
        value: object = import_module(self.module)
        for part in self.name.split("."):
            value = getattr(value, part)
        return value

    @property
    def path(self) -> str:
        """The module's file, relative to the repository root (the source tree maps `tablebench` to `harness/`)."""
        return "harness/" + "/".join(self.module.split(".")[1:]) + ".py"


@dataclass(frozen=True)
class PartRow:
    """One part of a score that is not a number: a feature it counts, a rule it follows, a behaviour of its reading."""

    name: str  # its name in the code ("glue", "share"); "" for a behaviour the code names nowhere
    meaning: str  # what it counts or does, in words (the docs show it as written here)
    test: str  # "tests/test_x.py::test_y": a test that fails without it


def render(rows: tuple[ScoreRow, ...]) -> str:
    """The rows as a Markdown table (a docs block `python -m tests.benchmarks.score_tables` writes)."""
    return markdown_table(("constant", "value", "what it decides", "how chosen", "test"), (
        (f"`{row.module.rsplit('.', 1)[-1]}.{row.name}`", repr(row.value), row.meaning, row.chosen, f"`{row.test}`")
        for row in rows))


def render_parts(head: Sequence[str], rows: tuple[PartRow, ...]) -> str:
    """Parts as a Markdown table: name, meaning, test under `head`; with a head of two columns (parts
    the code names nowhere, `name` ""), meaning and test."""
    named = len(head) == 3
    if any(bool(row.name) != named for row in rows):
        raise ValueError(f"render_parts: a head of {len(head)} columns for rows {'without' if named else 'with'} names")
    return markdown_table(head, ([row.name] * named + [row.meaning, f"`{row.test}`"] for row in rows))

