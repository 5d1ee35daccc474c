"""Pass/fail rules for benchmark cases, kept out of the pytest plugin so any runner can apply them.

- `thresholds`: `--min-score` floors, regression against baseline scores, number checks;
- `baseline`: the baseline file (save, load, how many entries match a run);
- `rules`: one case's verdict (pass / fail / known failure) from the above.
- `aggregate`: the aggregate gate (paired statistics of a run against its baseline);
- `regressions`: each case's change against the baseline;
- `decide`: a run's decisions from all of the above, in one place for every runner (the report
  only writes them).
"""
