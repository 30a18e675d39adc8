#!/usr/bin/env bash
# One shard of the weekly mutation run, the same on a laptop as in
# .github/workflows/weekly.yml:
#   ci/weekly-mutation.sh I K [SEED] [OUT]
# runs every mutation campaign of the nightly list, also those its rotation rests on the
# night (`montverif regress --list nightly --parts mutation --every-campaign --shard I/K
# --seed SEED`: the nightly runs one share of them a night, docs/mutation.md) into OUT
# (default build/weekly/shard-I). SEED as for ci/nightly-shard.sh (`run`, `date`: the default
# here, or a number); every shard of one week must get the same. JOBS (default 2) runs that
# many at a time. Exit 0 whether the campaigns passed or failed (the merge reports failures);
# 2 on bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "error: ci/weekly-mutation.sh I K [SEED] [OUT]" >&2
  exit 2
fi
i=$1 k=$2 seed=${3:-date} out=${4:-build/weekly/shard-$1}
ci/setup.sh
start=$SECONDS
rc=0
.venv/bin/montverif regress --list nightly --parts mutation --every-campaign \
  --jobs "${JOBS:-2}" --shard "$i/$k" --seed "$seed" --out "$out" || rc=$?
echo "weekly mutation shard $i/$k: $((SECONDS - start)) s, exit $rc"
if [ "$rc" -gt 1 ]; then exit "$rc"; fi
