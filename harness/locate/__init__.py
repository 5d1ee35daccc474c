"""harness/locate: which piece of a parser's output is which ground truth (offline and by an LLM)."""
