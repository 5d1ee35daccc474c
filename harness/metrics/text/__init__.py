"""The text metrics (`scores`), the diff behind them (`details`) and their scorers (`registry`)."""
