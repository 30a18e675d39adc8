#!/usr/bin/env bash
# Set-up as the user (never root: build/ and .venv/ must stay writable by the steps that
# follow): .venv from requirements.txt with the project installed, the simulators checked,
# verilator_coverage extracted into the user's cache. System packages come first from ci/apt.sh.
# A restored .venv is reused as it is when requirements.txt and pyproject.toml hash as they
# did when it was made (a fresh checkout makes them newer than the venv's stamp, which alone
# would make make reinstall).
#   ci/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# (root is the only user of a container job: there it is the user)
if [ "$(id -u)" = 0 ] && [ -n "${CI:-}" ] && [ ! -f /.dockerenv ]; then
  echo "error: ci/setup.sh runs as the user; only ci/apt.sh needs root" >&2
  exit 2
fi
start=$SECONDS
# in a container job, root works in a checkout another user owns: git refuses it (the
# revision the reports name, `git ls-files`) unless told it is safe
if [ -f /.dockerenv ] && [ "$(id -u)" = 0 ] && command -v git >/dev/null; then
  git config --global --get-all safe.directory | grep -qxF "$PWD" ||
    git config --global --add safe.directory "$PWD"
fi
# A .venv restored from another workspace (a cache keyed on the inputs alone) would run that
# workspace's code: the editable install names its folders, its scripts their interpreter,
# by absolute path. One whose montverif is not this checkout's is made again here.
if [ -e .venv ]; then
  here=$(.venv/bin/python -c 'import montverif.regress as r; print(r.__file__)' 2>/dev/null || true)
  if [ "$here" != "$PWD/regress/__init__.py" ]; then
    echo "note: .venv is not this checkout's (its montverif: ${here:-none}); making it again" >&2
    rm -rf .venv
  fi
fi
inputs=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ -f .venv/.montverif-installed ] && [ "$(cat .venv/.ci-inputs 2>/dev/null)" = "$inputs" ]; then
  touch .venv/.montverif-installed
fi
make --no-print-directory setup
echo "$inputs" > .venv/.ci-inputs
echo "set-up: $((SECONDS - start)) s"
