#!/usr/bin/env bash
# The nightly's synthesis job, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-synth.sh [OUT]
# synthesises every design of the synthesis tables at WIDTHS (default 256) for Xilinx
# 7-series (`montverif synth table`), places and routes on an ECP5 (`table --pnr`)
# those whose 7-series synthesis holds at most MAX_LUTS LUTs (default 10000: the place and
# route's time grows with the size, docs/synth.md#the-nightly), each run in a folder of
# its own below OUT (default build/nightly/synth), then summary.json, summary.md and
# area-time.svg (`montverif synth summary`; the markdown also appended to
# $GITHUB_STEP_SUMMARY when set). DESIGNS limits the designs, RUN_TIMEOUT (default 2400)
# is each run's limit in seconds. A result of the same revision already in OUT is kept.
# Exit: 0 every run finished, 1 a run failed (the summary names its error), 2 bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 1 ]; then
  echo "error: ci/nightly-synth.sh [OUT]" >&2
  exit 2
fi
out=${1:-build/nightly/synth}
widths=${WIDTHS:-256}
make --no-print-directory venv
.venv/bin/montverif synth warm
mv=(.venv/bin/montverif synth table --widths "$widths" --out "$out" --timeout "${RUN_TIMEOUT:-2400}")
rc=0
"${mv[@]}" ${DESIGNS:+--designs "$DESIGNS"} || rc=$?
if [ "$rc" = 2 ]; then exit 2; fi
prc=0
"${mv[@]}" ${DESIGNS:+--designs "$DESIGNS"} --pnr --max-luts "${MAX_LUTS:-10000}" || prc=$?
if [ "$prc" = 2 ]; then exit 2; fi
.venv/bin/montverif synth summary "$out"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
  cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
fi
if [ "$rc" != 0 ] || [ "$prc" != 0 ]; then exit 1; fi
exit 0
