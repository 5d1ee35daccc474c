"""The built-in parser adapters: PDF page in, text out (tables as Markdown / HTML where they stand).

Each registers under the `tablebench.parsers` entry-point group (see pyproject.toml), exactly
as a third-party parser does; `tablebench.parse` finds them there and never imports this package.
"""
