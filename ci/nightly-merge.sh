#!/usr/bin/env bash
# The nightly's last step, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-merge.sh OUT SHARD_DIR...
# joins the shard folders into OUT (`montverif merge`: summary.json, junit.xml, buckets,
# merged coverage, report.html, one history line in build/regress/history.jsonl), writes
# OUT/summary.md (also appended to $GITHUB_STEP_SUMMARY when set) and lists the failing
# seeds' waves. HISTORY names another history file. Exit: the merge's (0 all passed, 1 a run failed, a shard missing or a goal
# missed, 2 bad input).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then
  echo "error: ci/nightly-merge.sh OUT SHARD_DIR..." >&2
  exit 2
fi
out=$1
shift
make --no-print-directory venv
rc=0
.venv/bin/montverif merge "$out" "$@" --history "${HISTORY:-build/regress/history.jsonl}" || rc=$?
if [ ! -f "$out/summary.json" ]; then exit "$rc"; fi
.venv/bin/montverif report "$out" --markdown > "$out/summary.md"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
find "$out/runs" -name waves.fst -printf "waves: %h\n" 2>/dev/null || true
exit "$rc"
