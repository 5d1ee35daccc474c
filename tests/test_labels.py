"""Parser labels: `NAME=SPEC`, and the labels unnamed specs get (short, stable, normalised)."""

from __future__ import annotations

import pytest

from tablebench.core.labels import default_label, label_specs, split_label


@pytest.mark.parametrize("value, expected", [
    ("mine=dir:/x/", ("mine", "dir:/x/")),
    ("v2.1_beta+x=command:python run.py {pdf}", ("v2.1_beta+x", "command:python run.py {pdf}")),
    ("pdfplumber?strategy=lines", (None, "pdfplumber?strategy=lines")),
    ("command:tool --cols=a,b {pdf}", (None, "command:tool --cols=a,b {pdf}")),
    ("vlm:openai/gpt-x?detail=high", (None, "vlm:openai/gpt-x?detail=high")),
    ("=pypdf", (None, "=pypdf")),
])
def test_a_name_is_split_off_only_when_it_is_a_plain_word(value, expected):
    assert split_label(value) == expected


def test_dir_labels_are_normalised_paths():
    assert default_label("dir:/x/") == default_label("dir:/x") == default_label("dir:/x/./") == "dir:/x"
    assert default_label("dir:out//a/") == "dir:out/a"
    assert default_label("pypdf") == "pypdf" and default_label("pdfplumber?x=1") == "pdfplumber?x=1"


def test_command_labels_are_short_and_tell_commands_apart():
    a = default_label("command:/usr/bin/python3.11 /home/me/tools/my_parser.py --fast {pdf} {out}")
    b = default_label("command:/usr/bin/python3.11 /home/me/tools/my_parser.py --slow {pdf} {out}")
    assert a.startswith("command:python3.11+my_parser.py#") and len(a) <= 60
    assert a != b and " " not in a and "/" not in a
    assert default_label("command:sh -c 'echo boom >&2; exit 1' sh {pdf}").startswith("command:sh#")
    assert default_label("command:python -m my_pkg.cli --x {pdf}").startswith("command:python+my_pkg.cli#")
    assert default_label("command:mytool {pdf}").startswith("command:mytool#")
    assert default_label("command:'unbalanced {pdf}").startswith("command:")


def test_labels_must_be_unique():
    assert label_specs(["pypdf", "a=dir:/x", "dir:/y/"]) == {"pypdf": "pypdf", "a": "dir:/x", "dir:/y": "dir:/y/"}
    with pytest.raises(ValueError, match="two parsers have the label 'dir:/x'"):
        label_specs(["dir:/x", "dir:/x/"])
    with pytest.raises(ValueError, match="two parsers have the label 'a'"):
        label_specs(["a=pypdf", "a=pdfplumber"])
