#!/usr/bin/env bash
# The nightly's long tests, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-tests.sh [OUT [I/K]]
# runs the tests with the `nightly` marker (`make test-nightly`: every design at every
# [test] point of its descriptor on both simulators, the large formal fault builds, a copy
# of every design, the guide end to end; `make test` runs a small stand-in of each), or
# shard I of K of them (`TEST_SHARD=I/K`, dealt by weight: regress/tests/testshard.py), and
# writes their JUnit XML to OUT/junit.xml (default build/nightly/tests). The pass line is
# also appended to $GITHUB_STEP_SUMMARY when set.
# Exit: 0 every test passed, 1 a test failed or did not run (make gives no finer code), 2
# bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "error: ci/nightly-tests.sh [OUT [I/K]]${1:+: $1}" >&2
  exit 2
}
if [ $# -gt 2 ]; then usage; fi
out=${1:-build/nightly/tests}
shard=${2:-}
if [ -n "$shard" ]; then
  [[ $shard =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || usage "shard '$shard' is not I/K"
  [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || usage "shard $shard: I above K"
fi
ci/setup.sh
mkdir -p "$out"
start=$SECONDS
rc=0
make --no-print-directory test-nightly NIGHTLY_JUNIT="$out/junit.xml" TEST_SHARD="$shard" \
  | tee "$out/pytest.txt" || rc=$?
echo "nightly tests${shard:+ (shard $shard)}: $((SECONDS - start)) s, exit $rc"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo "### Nightly tests${shard:+ (shard $shard)}"; echo; echo '```'; tail -n 1 "$out/pytest.txt"; echo '```'; } \
    >> "$GITHUB_STEP_SUMMARY"
fi
if [ "$rc" -ne 0 ]; then exit 1; fi
