"""Reports of a regression: the terminal summary, junit.xml, report.html, the history of
regressions and their trends, cycles.md. They read a `Regression` (or its summary.json);
nothing here runs a simulator."""
