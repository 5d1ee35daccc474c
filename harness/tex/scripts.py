"""Unicode super- and subscripts: `x^{2}` and `<sup>2</sup>` both read as what the page shows, x²."""

from __future__ import annotations

_SUP = dict(zip("0123456789+-=()niabcdefghijklmoprstuvwxyzABDEGHIJKLMNOPRTUVW−",
                "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁⱽᵂ⁻"))
_SUB = dict(zip("0123456789+-=()aehijklmnoprstuvx−",
                "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ₋"))


def to_superscript(text: str) -> str | None:
    """`text` in Unicode superscripts, or None when some character has no superscript form."""
    return _convert(text, _SUP)


def to_subscript(text: str) -> str | None:
    """`text` in Unicode subscripts, or None when some character has no subscript form."""
    return _convert(text, _SUB)


def _convert(text: str, table: dict[str, str]) -> str | None:
    stripped = text.strip()
    if not stripped or any(ch not in table for ch in stripped):
        return None
    return "".join(table[ch] for ch in stripped)
