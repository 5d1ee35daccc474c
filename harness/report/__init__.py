"""Reporting: aggregation of results and their renderings (terminal, Markdown, HTML, JSON).

Stable entry points (the pytest plugin and the CLI use these):

- `tablebench.report.aggregate.leaderboard(results, primary=None) -> Leaderboard`
- `tablebench.report.write.write_report(results, out_dir, meta) -> {"json"|"markdown"|"html": Path}`
- `tablebench.report.terminal.leaderboard_group(board) -> rich renderable` (print with a rich Console)
"""
