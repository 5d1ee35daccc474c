"""The formula track: LaTeX formulas read into one canonical form, then scored.

Data flow, one module per step:

    parse.py      LaTeX (any delimiters) -> Node tree -> canonical token sequence
    score.py      token edit similarity; the offline formula score (weighted alignment)
    render.py     formula -> glyphs with positions (pdflatex, cached by content)
    cdm.py        rendered comparison in the spirit of CDM (glyph match F1)
    registry.py   formula metric names -> (gt, pred) -> named floats
    metaeval.py   agreement with the formula-metric-study human ratings, with CV
    importer.py   pdf-parse-bench formula ground truth -> plain data
    mathml.py     MathML output -> LaTeX (for the locator)
    locate.py     find each ground-truth formula in a parser's output
"""
