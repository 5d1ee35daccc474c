"""Reporting: aggregation of results and their renderings (terminal, Markdown, HTML, JSON).

Stable entry points (the pytest plugin and the CLI use these):

- `harness.report.aggregate.leaderboard(results, primary=None) -> Leaderboard`
- `harness.report.write.write_report(results, out_dir, meta) -> {"json"|"markdown"|"html": Path}`
- `harness.report.terminal.leaderboard_group(board) -> rich renderable` (print with a rich Console)
"""
