#!/usr/bin/env bash
# The nightly's code coverage, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-codecov.sh [OUT] [SEED]
# runs the smoke list on Verilator coverage builds (`montverif regress --list smoke
# --code-coverage`: line, branch and toggle) into OUT (default build/nightly/codecov) and
# checks that the exports CI uploads are there: OUT/coverage/code/merged.info (LCOV: lines
# and branches), merged.toggle.info (LCOV: toggle) and merged.cobertura.xml (Cobertura).
# SEED as in ci/nightly-shard.sh (default `date`). JOBS (default 2) runs that many at a time;
# REGRESS_ARGS adds options (e.g. REGRESS_ARGS="--dut mont_r2": one design's runs).
# Exit 0 with the exports written (failing runs are the shards' to report: they are left out
# of the coverage), 1 when an export is missing, 2 on bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 2 ]; then
  echo "error: ci/nightly-codecov.sh [OUT] [SEED]" >&2
  exit 2
fi
out=${1:-build/nightly/codecov} seed=${2:-date}
ci/setup.sh
start=$SECONDS
rc=0
# shellcheck disable=SC2086  # REGRESS_ARGS is a list of options: split on purpose
.venv/bin/montverif regress --list smoke --code-coverage --sim verilator --jobs "${JOBS:-2}" \
  --seed "$seed" --out "$out" ${REGRESS_ARGS:-} || rc=$?
echo "nightly code coverage: $((SECONDS - start)) s, exit $rc"
if [ "$rc" -gt 1 ]; then exit "$rc"; fi
missing=0
for f in merged.info merged.toggle.info merged.cobertura.xml; do
  if [ ! -s "$out/coverage/code/$f" ]; then
    echo "error: $out/coverage/code/$f was not written" >&2
    missing=1
  fi
done
exit "$missing"
