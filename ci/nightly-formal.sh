#!/usr/bin/env bash
# The nightly's formal job, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-formal.sh [OUT]
# proves the bus loader and checks every design's core at its descriptor's [formal] points
# (`montverif formal --points`, docs/formal.md) into OUT (default build/nightly/formal):
# a folder per point, summary.json, summary.md (also appended to $GITHUB_STEP_SUMMARY when
# set). JOBS (default 2) proofs at a time; DUT=D checks only design D's points. Exit: 0 every
# point as required, 1 otherwise, 2 bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ]; then
  echo "error: ci/nightly-formal.sh [OUT]" >&2
  exit 2
fi
out=${1:-build/nightly/formal}
make --no-print-directory venv
rc=0
.venv/bin/montverif formal --points --jobs "${JOBS:-2}" --out "$out" ${DUT:+--dut "$DUT"} || rc=$?
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
  cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
exit "$rc"
