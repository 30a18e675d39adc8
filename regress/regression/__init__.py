"""The regression: lists, their expansion into seeded runs, shards, the scheduler that builds
and runs them through a launcher, and the results (result.json per run, summary.json).

Nothing here renders a report, merges coverage or runs mutation campaigns: the layers above
(montverif.regress.report, .coverage, .mutate) read a `Regression`; the command line
(montverif.regress.cli) puts them together.
"""
