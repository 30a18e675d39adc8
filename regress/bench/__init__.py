"""Benchmarks: testbench throughput against a raw Verilator harness, simulator ratio, build
times, cycle counts against the papers, regression wall time.

    montverif bench [--designs mont_lut,...] [--widths 256,1024] [--txns 40]
                            [--repeat 3] [--sims verilator,icarus] [--lists smoke]
                            [--jobs 1,2] [--out docs/generated/bench]

For every design and width the same operand vectors run three ways: the cocotb/pyuvm
testbench with full checking and coverage (VectorTest, no idle cycles) on Verilator and on
Icarus, and a plain C++ harness on the same Verilated RTL (regress/bench/harness.cpp) that
performs the same bus transfers. Throughput is checked operations per second of simulation
(cocotb's own test time; the harness's timed loop), the median of --repeat runs with min and
max. Each repeat runs the testbench and then the raw harness, and a ratio between them is the
median of the repeats' ratios: side by side, as the machine's speed drifts over minutes.
Every harness result is checked against gmpy2 too. `make bench` writes
docs/generated/bench/results.json, docs/generated/bench/results.md and PNG plots beside them.

`points` measures one design at one width, `harness` is the raw C++ harness, `floors` the
simulator's idle cost, `walls` a regression's wall time, `profile` where a run's time goes,
`render` writes results.md and the plots.
"""
