#!/usr/bin/env bash
# The nightly's formal job, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-formal.sh [OUT]
# proves the bus loader and checks every design's core at its descriptor's [formal] points
# (`montverif formal --points`, docs/formal.md) into OUT (default build/nightly/formal):
# a folder per point, summary.json, summary.md (also appended to $GITHUB_STEP_SUMMARY when
# set). JOBS (default 2) proofs at a time; DUT=D checks only design D's points. Then it
# checks with SBY every recorded equivalent mutant no SBY proof backs yet
# (`montverif mutate proofs prove`, docs/mutation.md) into OUT/mutants: mutants.txt, and
# equivalents.json as it would be with what was proved (commit it from a run you trust).
# Exit: 0 every point as required and no recorded equivalent told apart, 1 otherwise, 2 bad
# input.
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
if [ "$rc" = 2 ]; then
  exit 2
fi
mkdir -p "$out/mutants"
cp regress/mutate/equivalents.json "$out/mutants/equivalents.json"
.venv/bin/montverif mutate proofs prove --proofs "$out/mutants/equivalents.json" \
  --out "$out/mutants/checks" ${DUT:+--dut "$DUT"} > "$out/mutants/mutants.txt" || rc=1
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$out/summary.md" ]; then
  cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
  { echo; echo '### Recorded equivalent mutants checked by SBY'; echo; echo '```';
    tail -n 1 "$out/mutants/mutants.txt"; grep '^DIFFERENT' "$out/mutants/mutants.txt" || true
    echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
tail -n 1 "$out/mutants/mutants.txt"
exit "$rc"
