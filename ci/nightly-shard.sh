#!/usr/bin/env bash
# One shard of the nightly regression, the same on a laptop as in .github/workflows/nightly.yml:
#   ci/nightly-shard.sh I K [SEED] [OUT]
# runs `montverif regress --list nightly --parts runs,mutation --shard I/K --seed SEED` (the
# list's formal checks run beside the shards: ci/nightly-formal.sh) into OUT (default
# build/nightly/shard-I). SEED is the night's base seed: `run` (the CI run number, the same in
# every shard of one workflow run: what the workflow passes), `date` (today, UTC: the default
# here) or a number (to replay a night: the seed its report and summary.json name). Every
# shard of one night must get the same SEED: `montverif merge` refuses shards of different
# seeds. JOBS (default 2) runs that many at a time; REGRESS_ARGS adds options, e.g.
# REGRESS_ARGS="--launcher slurm --partition P" to run the shard's builds and runs on Slurm;
# PARTS (default runs,mutation) the parts: the weekly workflow's PARTS=mutation
# REGRESS_ARGS=--every-campaign runs every mutation campaign, also those the rotation rests.
# Exit 0 whether the runs passed or failed (the merge reports failures); 2 on bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ] || [ $# -gt 4 ]; then
  echo "error: ci/nightly-shard.sh I K [SEED] [OUT]" >&2
  exit 2
fi
i=$1 k=$2 seed=${3:-date} out=${4:-build/nightly/shard-$1}
ci/setup.sh
start=$SECONDS
rc=0
# shellcheck disable=SC2086  # REGRESS_ARGS is a list of options: split on purpose
.venv/bin/montverif regress --list nightly --parts "${PARTS:-runs,mutation}" --jobs "${JOBS:-2}" \
  --shard "$i/$k" --seed "$seed" --out "$out" ${REGRESS_ARGS:-} || rc=$?
echo "nightly shard $i/$k: $((SECONDS - start)) s, exit $rc"
if [ "$rc" -gt 1 ]; then exit "$rc"; fi
