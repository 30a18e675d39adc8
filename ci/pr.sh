#!/usr/bin/env bash
# The pull-request check, the same on a laptop as in .github/workflows/pr.yml:
#   ci/pr.sh            the smoke regression (every design on Verilator) with a Markdown summary
#   ci/pr.sh test       the lint and the test suite (make lint, make test)
# The regression's results folder is build/regress/latest: report.html, junit.xml (published
# to the checks page by the workflow), summary.json and summary.md (pass/fail per design,
# failure buckets with their repro lines, coverage), which is also appended to
# $GITHUB_STEP_SUMMARY when that is set. JOBS (default 2) runs that many at a time;
# SMOKE_ARGS adds options to the regression (a subset: SMOKE_ARGS="--dut mont_r2").
# Exit: the regression's (0 passed, 1 a run failed or a goal missed, 2 bad input).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-smoke}
case "$what" in
  smoke)
    ci/setup.sh
    start=$SECONDS
    rc=0
    read -r -a extra <<< "${SMOKE_ARGS:-}"
    .venv/bin/montverif regress --list smoke --jobs "${JOBS:-2}" "${extra[@]}" || rc=$?
    echo "smoke regression: $((SECONDS - start)) s, exit $rc"
    if [ "$rc" -gt 1 ]; then exit "$rc"; fi
    out=$(readlink -f build/regress/latest)
    .venv/bin/montverif report "$out" --markdown > "$out/summary.md"
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$out/summary.md" >> "$GITHUB_STEP_SUMMARY"; fi
    echo "summary: $out/summary.md"
    exit "$rc"
    ;;
  test)
    ci/setup.sh
    make --no-print-directory lint
    make --no-print-directory test
    ;;
  *)
    echo "error: ci/pr.sh [smoke|test] (got '$what')" >&2
    exit 2
    ;;
esac
