"""The forms a secret takes in text that was encoded on its way: escaped, percent-encoded, base64.

Why: redacting the raw value misses a key that a judge echoes `\\u`-escaped inside its JSON
answer (`"\\u0073\\u006b..."`), a parser prints as a URL parameter (`%73%6B...`) or in an HTML
entity, or a tool writes in base64 (an `Authorization: Basic` header); once the text is decoded
(the JSON parsed, the page rendered) the raw key is back, in the cache and the report.

`pattern(secrets)` is one regular expression matching each secret with every character in
any of the forms it may take, mixed (raw; `\\uXXXX`, `\\UXXXXXXXX`, `\\xXX` or an octal escape;
`%XX` per UTF-8 byte; `&#N;` / `&#xH;`; `\\/` for a slash), so replacing its matches leaves no
decodable copy. It has no nested repetition: each attempt is bounded by the secret's length,
so it runs in time linear in the text. `base64_forms(secret)` are the stretches every base64
encoding of a text holding the secret contains, whatever the alignment (standard and URL-safe
alphabets).
"""

from __future__ import annotations

import base64
import re
from functools import lru_cache

ESCAPE_MARKS = ("\\", "%", "&#")  # text holding none of these holds a secret only raw (or base64)
MIN_BASE64 = 8  # characters: shorter stretches would match unrelated base64 by chance


def _hex(value: int, width: int) -> str:
    """`value` as `width` hex digits, each letter matching either case."""
    return "".join(f"[{d.lower()}{d.upper()}]" if d.isalpha() else d for d in f"{value:0{width}x}")


def _char(ch: str) -> str:
    """Every form of one character the encodings above give it."""
    code = ord(ch)
    forms = [re.escape(ch), r"&#0*" + str(code) + ";?", r"&#[xX]0*" + _hex(code, 1).lstrip("0") + ";?"]
    if code <= 0xFFFF:
        forms.append(r"\\u" + _hex(code, 4))
    else:  # JSON writes a character past the BMP as a surrogate pair
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        forms.append(r"\\u" + _hex(high, 4) + r"\\u" + _hex(low, 4))
    forms.append(r"\\U" + _hex(code, 8))
    if code < 0x100:
        forms += [r"\\x" + _hex(code, 2), r"\\0{0,2}" + f"{code:o}" if code < 0o100 else r"\\" + f"{code:o}"]
    forms.append("".join("%" + _hex(byte, 2) for byte in ch.encode("utf-8")))
    if ch == "/":
        forms.append(r"\\/")
    return "(?:" + "|".join(forms) + ")"


@lru_cache(maxsize=32)
def pattern(secrets: tuple[str, ...]) -> re.Pattern[str] | None:
    """One pattern for every secret of `secrets` (longest first) in any mix of its forms; None for none."""
    if not secrets:
        return None
    return re.compile("|".join("".join(_char(ch) for ch in secret) for secret in secrets))


@lru_cache(maxsize=256)
def base64_forms(secret: str) -> tuple[str, ...]:
    """The base64 stretches that stand for `secret` at each of the three byte alignments, in the
    standard and the URL-safe alphabet: the characters whose six bits all come from the secret."""
    data = secret.encode("utf-8")
    out: list[str] = []
    for lead in range(3):
        encoded = base64.b64encode(b"\0" * lead + data).decode("ascii")
        first = -(-8 * lead // 6)  # the first character with no bit of the lead bytes
        last = (8 * (lead + len(data)) - 6) // 6  # the last one with no bit past the secret
        stretch = encoded[first:last + 1]
        if len(stretch) >= MIN_BASE64:
            out += [stretch, stretch.replace("+", "-").replace("/", "_")]
    return tuple(dict.fromkeys(out))
