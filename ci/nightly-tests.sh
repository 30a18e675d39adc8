#!/usr/bin/env bash
# The nightly's long tests, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-tests.sh [OUT]
# runs the tests with the `nightly` marker (`make test-nightly`: every design at every
# [test] point of its descriptor on both simulators, the large formal fault builds, a copy
# of every design, the guide end to end; `make test` runs a small stand-in of each) and
# writes their JUnit XML to OUT/junit.xml (default build/nightly/tests). The pass line is
# also appended to $GITHUB_STEP_SUMMARY when set.
# Exit: 0 every test passed, 1 a test failed or did not run (make gives no finer code), 2
# bad arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ]; then
  echo "error: ci/nightly-tests.sh [OUT]" >&2
  exit 2
fi
out=${1:-build/nightly/tests}
ci/setup.sh
mkdir -p "$out"
start=$SECONDS
rc=0
make --no-print-directory test-nightly NIGHTLY_JUNIT="$out/junit.xml" | tee "$out/pytest.txt" \
  || rc=$?
echo "nightly tests: $((SECONDS - start)) s, exit $rc"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { echo '### Nightly tests'; echo; echo '```'; tail -n 1 "$out/pytest.txt"; echo '```'; } \
    >> "$GITHUB_STEP_SUMMARY"
fi
if [ "$rc" -ne 0 ]; then exit 1; fi
