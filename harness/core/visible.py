"""Control characters written out: a file's text is shown on terminals, where an escape sequence
(`\\x1b[2J`, a window title, a hyperlink), a bell or a carriage return would act instead of being
read. Every string read from a results, baseline or comparison file passes here
(`tablebench.core.schema.loads`), so no command shows one raw. Nothing is lost: each such character
stays legible as `\\xNN`."""

from __future__ import annotations

import re
from typing import Any

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # control characters but tab and line feed


def written_out(text: str) -> str:
    """`text` with its control characters (but tab and line feed) as `\\xNN`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text) if _CONTROL.search(text) else text


def visible(value: Any) -> Any:
    """`value` (parsed JSON) with every string, keys too, `written_out`: one pass, without recursion
    (the parse bounds the nesting, not the stack of a walk)."""
    if isinstance(value, str):
        return written_out(value)
    if not isinstance(value, (list, dict)):
        return value
    stack = [value]
    while stack:
        node = stack.pop()
        for key, child in list(node.items() if isinstance(node, dict) else enumerate(node)):
            if isinstance(child, str):
                node[key] = written_out(child)
            elif isinstance(child, (list, dict)):
                stack.append(child)
        if isinstance(node, dict) and any(_CONTROL.search(k) for k in node if isinstance(k, str)):
            renamed = {written_out(k) if isinstance(k, str) else k: v for k, v in node.items()}
            node.clear()
            node.update(renamed)
    return value
