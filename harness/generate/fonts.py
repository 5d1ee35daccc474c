"""The pdflatex font setups a page may use, shared by the layout sampler and `--languages`.

Only fonts that ship with texlive-fonts-recommended / tex-gyre / lmodern are offered
(kpfonts, libertine and newtx need texlive-fonts-extra, which makes every compile slower).
Kept apart from `layouts.py` so that `languages.py` (which sets a Greek page in Latin Modern)
needs no page layout, and the layout can ask the language for its preamble without a cycle.
"""

from __future__ import annotations

# key -> preamble lines
FONTS: dict[str, str] = {
    "latin-modern": r"\usepackage{lmodern}",
    "times": r"\usepackage{mathptmx}",
    "termes": r"\usepackage{tgtermes}",
    "palatino": r"\usepackage{mathpazo}",
    "pagella": r"\usepackage{tgpagella}",
    "charter": r"\usepackage{charter}",
    "helvetica": "\\usepackage[scaled=0.92]{helvet}\n\\renewcommand{\\familydefault}{\\sfdefault}",
    "heros": "\\usepackage{tgheros}\n\\renewcommand{\\familydefault}{\\sfdefault}",
    "bookman": r"\usepackage{tgbonum}",
    "schola": r"\usepackage{tgschola}",
}
