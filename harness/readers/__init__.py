"""Readers: text in some format -> list of `Table`s. Each raises `NoTableError` when it finds none."""
