#!/usr/bin/env bash
# The nightly's formal part, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-formal.sh [OUT] [SEED] [I/K]
# runs the nightly list's formal checks (`montverif regress --list nightly --parts formal`:
# the bus loader's proof, every core at its [formal] points, each fault build and each core
# by k-induction at its first point, PROVED or else BOUNDED: docs/formal.md, JOBS
# (default 2) at a time; DUT=D only design D's) into OUT (default build/nightly/formal), a
# results folder that ci/nightly-merge.sh joins with the shards' (same SEED: `run`, `date`,
# the default, or a number). OUT/summary.md is also appended to $GITHUB_STEP_SUMMARY when
# set. Then it checks with SBY every recorded equivalent mutant no SBY proof backs yet
# (`montverif mutate proofs prove`, docs/mutation.md) into OUT/mutants: mutants.txt, and
# equivalents.json as it would be with what was proved (commit it from a run you trust).
# I/K: shard I of K of the checks (`--shard`, dealt by estimated cost; the merge joins them),
# the recorded equivalents in shard 1 only.
# Exit: 0 every check reached its verdict and no recorded equivalent was told apart, 1
# otherwise, 2 bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() {
  echo "error: ci/nightly-formal.sh [OUT] [SEED] [I/K]${1:+: $1}" >&2
  exit 2
}
if [ $# -gt 3 ]; then usage; fi
out=${1:-build/nightly/formal}
seed=${2:-date}
shard=${3:-}
if [ -n "$shard" ]; then
  [[ $shard =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || usage "shard '$shard' is not I/K"
  [ "${BASH_REMATCH[1]}" -le "${BASH_REMATCH[2]}" ] || usage "shard $shard: I above K"
fi
make --no-print-directory venv
rc=0
.venv/bin/montverif regress --list nightly --parts formal --seed "$seed" --jobs "${JOBS:-2}" \
  --out "$out" ${DUT:+--dut "$DUT"} ${shard:+--shard "$shard"} || rc=$?
if [ "$rc" -gt 1 ]; then
  exit "$rc"
fi
.venv/bin/montverif report "$out" --markdown > "$out/summary.md"
if [ -n "$shard" ] && [ "${shard%%/*}" != 1 ]; then
  [ -z "${GITHUB_STEP_SUMMARY:-}" ] || cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
  exit "$rc"
fi
mkdir -p "$out/mutants"
cp regress/mutate/equivalents.json "$out/mutants/equivalents.json"
.venv/bin/montverif mutate proofs prove --proofs "$out/mutants/equivalents.json" \
  --out "$out/mutants/checks" ${DUT:+--dut "$DUT"} > "$out/mutants/mutants.txt" || rc=1
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"
  { echo; echo '### Recorded equivalent mutants checked by SBY'; echo; echo '```';
    tail -n 1 "$out/mutants/mutants.txt"; grep '^DIFFERENT' "$out/mutants/mutants.txt" || true
    echo '```'; } >> "$GITHUB_STEP_SUMMARY"
fi
tail -n 1 "$out/mutants/mutants.txt"
exit "$rc"
