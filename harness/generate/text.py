"""Filler text from Faker, in the page's language, escaped for LaTeX.

Each paragraph is a list of sentences, because the page planner cuts the last paragraph
at a sentence boundary to fill the page exactly.
"""

from __future__ import annotations

import re

from tablebench.generate.languages import LANGUAGES  # --languages: ru, el, zh, ja, ar, hi too
from tablebench.generate.layouts import FAKER_LOCALES
from tablebench.generate.vocab_i18n import HINDI_WORDS

_SPECIAL = re.compile(r"([&%$#_{}])")


def escape_latex(text: str) -> str:
    """Plain text -> LaTeX that typesets as the same characters."""
    text = text.replace("\\", r"\textbackslash{}")
    text = _SPECIAL.sub(r"\\\1", text)
    return text.replace("~", r"\textasciitilde{}").replace("^", r"\textasciicircum{}")


def _faker(locale: str):
    """A fresh Faker per page, so pages never share random state (threads, interleaving)."""
    from faker import Faker  # imported lazily: only generation needs it

    return Faker(locale)


class TextSource:
    """Deterministic paragraphs and headings for one page (`seed`, `language` in en/de/fr/es)."""

    def __init__(self, seed: int, language: str) -> None:
        if language not in FAKER_LOCALES and language not in LANGUAGES:
            raise ValueError(f"unsupported language {language!r}: expected one of {', '.join(LANGUAGES)}")
        locale = FAKER_LOCALES.get(language) or LANGUAGES[language].faker
        self.end = "." if language in FAKER_LOCALES else LANGUAGES[language].sentence_end
        self.fake = _faker(locale or "en_US")  # no locale: own words (Hindi), Faker only for the random ints
        self.fake.seed_instance(int(seed))
        self.words: tuple[str, ...] = ()
        if locale is None:
            self.words = HINDI_WORDS

    def _sentence(self, nb_words: int) -> str:
        if self.words:
            return " ".join(self.fake.random_elements(self.words, length=nb_words)) + self.end
        sentence = self.fake.sentence(nb_words=nb_words)
        if self.end != ".":  # zh: Faker ends with ".", the page wants "。"
            sentence = sentence.rstrip(".。") + self.end
        return sentence

    def paragraph(self, n_min: int = 3, n_max: int = 8) -> list[str]:
        """A paragraph as sentences of plain text (not yet escaped)."""
        n = self.fake.random_int(n_min, n_max)
        return [self._sentence(self.fake.random_int(8, 22)) for _ in range(n)]

    def heading(self) -> str:
        """A short section title, capitalised, without a final full stop."""
        return self._sentence(self.fake.random_int(2, 5)).rstrip(".。।")
