"""Testbench qualification by mutation (issue 8): single-point mutants of a design's RTL,
each built and run with the design's tests; killed, survived, equivalent or stillborn.

    montverif mutate --dut mont_lut [--n 8] [--mutants 12] [--seed 1] [--jobs 1]

svmut.py finds the candidate sites; engine.py runs a campaign, stage by stage: mutant_run.py
builds and runs one mutant, sharing.py lets many share one build (meta.py writes the
meta-mutant sources, selected at run time with +MV_MUTANT=<id>), at_points.py judges the
survivors at the lists' other parameter points, equivalence.py against the original
(eqvectors.py the vectors); report.py writes the table, mutants.json, mutate.md, mutate.html.
"""
