"""The built-in item kinds, one module each: tables, formulas and text (see `tablebench.core.kinds`).

A kind composes the stages below it (readers, locators, metrics, the judge) into the one
object every stage asks; a new kind is a new module here or in another package, registered
with `tablebench.core.kinds.register` or the `tablebench.kinds` entry-point group.
"""
