"""What each canonical formula token is: content, operator, structure, accent, ... (`token_class`).

The formula score counts an edit by the class of the token it touches, and the formula
locator compares formulas by their content classes only; both read the classes here, next
to the tokens they classify (`formula_tree.serialise`). A style prefix (`bb:R`) is ignored.
"""

from __future__ import annotations

import unicodedata

FEATURES = ("content", "operator", "structure", "accent", "style", "delimiter", "punctuation", "layout")
CONTENT, OPERATOR, STRUCTURE, ACCENT, STYLE, DELIMITER, PUNCTUATION, LAYOUT = range(len(FEATURES))

_DELIMITERS = frozenset("()[]{}|‖⟨⟩⌈⌉⌊⌋")
_PUNCTUATION = frozenset(",;.:!?")
_ACCENT_MARKERS = frozenset(r"\hat{ \tilde{ \bar{ \vec{ \dot{ \ddot{ \dddot{ \acute{ \grave{ \breve{ "
                            r"\check{ \ring{ \underline{ \underbrace{ \overbrace{ \overleftarrow{ "
                            r"\cancel{".split())


def token_class(token: str) -> int:
    """The feature class of one canonical token (its style prefix ignored)."""
    if token in _ACCENT_MARKERS:
        return ACCENT
    if token in ("&", "\\\\", "\\matrix{"):
        return LAYOUT
    if token.endswith("{") or token == "}":
        return STRUCTURE
    base = token.split(":", 1)[1] if ":" in token[1:] else token
    if len(base) != 1:
        return CONTENT  # an unknown command, kept by name
    if base in _DELIMITERS:
        return DELIMITER
    if base in _PUNCTUATION:
        return PUNCTUATION
    if base.isalnum():
        return CONTENT
    if base in "+-*/=<>~^" or unicodedata.category(base) == "Sm" or 0x2190 <= ord(base) <= 0x21FF:
        return OPERATOR
    return CONTENT
