"""The tree a formula reads as, and its canonical token sequence (`serialise`).

`formula.parse_nodes` builds the tree; `serialise` writes it depth first with the markers a
metric weighs: `x_{i}^{2}` -> ['x', '_{', 'i', '}', '^{', '2', '}'], a fraction `\\frac{`,
a matrix `\\matrix{` with `&` and `\\\\` between its cells. `formula_classes` says what each
token is (content, operator, structure, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Atom:
    """One visible symbol; `style` is "bb", "cal" or "frak" for the letter styles we keep."""

    text: str
    style: str = ""


@dataclass(slots=True)
class Group:
    """Braces that only group: flattened in the token sequence."""

    children: list = field(default_factory=list)


@dataclass(slots=True)
class Script:
    """A base with an optional subscript and superscript (either order in the source)."""

    base: object
    sub: list | None = None
    sup: list | None = None


@dataclass(slots=True)
class Struct:
    """A construct with arguments: frac, binom, sqrt, an accent (hat, vec, ..), matrix rows."""

    name: str
    args: list = field(default_factory=list)  # list of node lists; matrix: list of rows of cells


class Sep(Atom):
    """`&` or `\\\\`: a cell/row separator inside a matrix, layout noise anywhere else."""



def serialise(nodes: list, out: list[str] | None = None) -> list[str]:
    """Depth-first tokens of a tree: `x_{i}^{2}` -> ['x', '_{', 'i', '}', '^{', '2', '}']."""
    out = [] if out is None else out
    for node in nodes:
        if isinstance(node, Sep):
            continue  # layout outside a matrix
        if isinstance(node, Atom):
            out.append(f"{node.style}:{node.text}" if node.style else node.text)
        elif isinstance(node, Group):
            serialise(node.children, out)
        elif isinstance(node, Script):
            if node.base is not None:
                serialise([node.base], out)
            if node.sub is not None:
                out.append("_{")
                serialise(node.sub, out)
                out.append("}")
            if node.sup is not None:
                out.append("^{")
                serialise(node.sup, out)
                out.append("}")
        elif isinstance(node, Struct):
            if node.name == "matrix":
                out.append("\\matrix{")
                for r, row in enumerate(node.args):
                    if r:
                        out.append("\\\\")
                    for c, cell in enumerate(row):
                        if c:
                            out.append("&")
                        serialise(cell, out)
                out.append("}")
                continue
            for k, arg in enumerate(node.args):
                out.append(f"\\{node.name}{{" if k == 0 else "}{")
                serialise(arg, out)
            out.append("}")
    return out

