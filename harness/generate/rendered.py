"""Does a compiled table show what its ground truth says? (pool tables, after measuring)

A pool table that passes every lexical check can still print something else than the text
our LaTeX reader gives its ground truth (`\\romannumeral 99999999` prints thousands of `m`,
a font trick or an unknown package macro prints nothing). `measure.py` ships each measured
table as a page of its own; here that page's text (pdftotext) is compared with the reader's
cell texts on content words: every word of the ground truth (NFKC, case-folded, runs of
letters and digits) must appear in the page text with white space removed. Comparing inside
space-free text tolerates what PDF text extraction does to layout (line breaks in `p{}`
columns, hyphenation, reading order of stacked cells, scripts printed apart), and still
catches a cell whose words are not printed at all.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata

PDFTOTEXT = "pdftotext"
_WORD = re.compile(r"\w+")
_BREAK_HYPHEN = re.compile(r"-\n")
_SPACE = re.compile(r"\s+")
_MAX_GAPPED = 6  # longer words must appear whole (the gapped pattern backtracks 2^(n-1) ways)


def have_pdftotext() -> bool:
    return shutil.which(PDFTOTEXT) is not None


def pdf_page_texts(pdf: bytes, timeout: float = 60.0) -> list[str]:
    """The text of every page of `pdf`, in order (pdftotext; form feeds separate pages)."""
    if not have_pdftotext():
        raise OSError("pdftotext not found: install poppler-utils (see README)")
    proc = subprocess.run([PDFTOTEXT, "-enc", "UTF-8", "-", "-"], input=pdf, capture_output=True,
                          timeout=timeout, check=False)
    if proc.returncode != 0:
        first = proc.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise ValueError(f"pdftotext failed: {first[0] if first else f'exit status {proc.returncode}'}")
    pages = proc.stdout.decode("utf-8", "replace").split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


# Same letter, other code point: pdftotext maps Latin Modern's \Delta to U+2206 INCREMENT.
_SAME = str.maketrans({"\u2206": "\u0394", "\u220f": "\u03a0", "\u2211": "\u03a3"})


def _fold(text: str) -> str:
    """NFKC, case-folded; a super- or subscript character becomes a word of its own, since the
    PDF prints it apart (`Rᵏᵢⱼ` is extracted as "k" over "Rij", `10³` as "10" then "3")."""
    if not text.isascii():
        text = "".join(f" {ch} " if unicodedata.decomposition(ch).startswith(("<super>", "<sub>")) else ch
                       for ch in text.translate(_SAME))
    return unicodedata.normalize("NFKC", text).casefold()


def content_words(text: str) -> list[str]:
    """The words a comparison looks for: NFKC, case-folded runs of letters and digits."""
    return _WORD.findall(_fold(text))


def _gapped(word: str) -> re.Pattern[str]:
    return re.compile(".?".join(map(re.escape, word)))


def missing_words(expected: str, rendered: str) -> list[str]:
    """Words of `expected` (in order, each once) that do not occur in `rendered` at all; a
    short word may have one character between two of its own (a script the reader could
    only inline: `L_{T}^{k}` reads "LTᵏ" and prints as "LkT")."""
    haystack = _SPACE.sub("", _BREAK_HYPHEN.sub("", _fold(rendered)))
    seen: set[str] = set()
    missing = []
    for word in content_words(expected):
        if word not in seen:
            seen.add(word)
            if word not in haystack and not (len(word) <= _MAX_GAPPED and _gapped(word).search(haystack)):
                missing.append(word)
    return missing
