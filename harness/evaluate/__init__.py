"""Evaluate: a page's items through parse -> locate -> score, as results (one per item).

`Evaluator` is the library entry point; `page.evaluate_page` the one step it repeats;
`repeat` runs a stochastic parser several times; `metaeval` checks metrics against human ratings.
"""

from tablebench.evaluate.evaluator import Evaluator

__all__ = ["Evaluator"]
