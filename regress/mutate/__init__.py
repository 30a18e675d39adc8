"""Testbench qualification by mutation (issue 8): single-point mutants of a design's RTL,
each built and run with the design's tests; killed, survived, equivalent or stillborn.

    montverif mutate --dut mont_lut [--n 8] [--mutants 12] [--seed 1] [--jobs 1]

svmut.py finds the candidate sites, engine.py builds and runs the mutants and checks the
survivors for equivalence, meta.py writes the meta-mutant sources that let many mutants share
one build (build-once-run-many, selected at run time with +MV_MUTANT=<id>), report.py writes
the table, mutants.json, mutate.md, mutate.html.
"""
