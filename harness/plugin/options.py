"""The plugin's command-line options, and the one `RunOptions` they become.

Every row of `tablebench.gating.options.OPTIONS` is a pytest option under "tablebench" (dests as
they always were, `tb_*`: a conftest may read them with config.getoption); the checks are
`read_options`, the same every `tablebench` subcommand uses.
"""

from __future__ import annotations

import pytest

from tablebench.core.option_table import PYTEST, add_options as add_rows, values_of
from tablebench.core.options import RunOptions
from tablebench.gating.options import OPTIONS, read_options

# RunOptions field -> the pytest option dest it is read from
DESTS = {row.field: row.dest_for(PYTEST) for row in OPTIONS if PYTEST in row.runners and row.field}


def run_options(config: pytest.Config) -> RunOptions:
    """This session's options, checked; a bad one is a one-line ValueError."""
    return read_options(values_of(config.option, PYTEST, OPTIONS))


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("tablebench", "tablebench: benchmark PDF table extraction (active with --parser)")
    add_rows(group, PYTEST, OPTIONS)
