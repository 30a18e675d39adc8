#!/usr/bin/env bash
# Set-up as the user (never root: build/ and .venv/ must stay writable by the steps that
# follow): .venv from requirements.txt with the project installed, the simulators checked,
# verilator_coverage extracted into build/tools/. System packages come first from ci/apt.sh.
# A restored .venv cache is reused; make reinstalls only when requirements.txt or
# pyproject.toml is newer than the venv's stamp.
#   ci/setup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" = 0 ] && [ -n "${CI:-}" ]; then
  echo "error: ci/setup.sh runs as the user; only ci/apt.sh needs root" >&2
  exit 2
fi
start=$SECONDS
make --no-print-directory setup
echo "set-up: $((SECONDS - start)) s"
