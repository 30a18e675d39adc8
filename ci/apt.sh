#!/usr/bin/env bash
# The one privileged step: the system packages `make setup` needs (Makefile APT_PKGS and
# apt-packages: the build tools, Python's venv, Icarus Verilog, the lz4 headers, ccache, the
# browser, GTKWave, lcov, Slurm). Everything else (ci/setup.sh and after) runs as the user,
# so build/ and .venv/ stay the user's. Run as root (a container job), it installs; run as a
# user, it runs itself again through sudo (a hosted runner's user, ci/act.sh's).
#   ci/apt.sh          (in CI and, once, on a laptop)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null; then
    echo "error: ci/apt.sh installs system packages: run it as root (no sudo here)" >&2
    exit 2
  fi
  exec sudo "$0" "$@"
fi
# make reads the list; a bare system (a debian:bookworm container) has no make yet
if ! command -v make >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends make >/dev/null
fi
read -r -a pkgs <<< "$(make -s --no-print-directory apt-packages)"
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "apt: ${pkgs[*]} already installed"
  exit 0
fi
echo "apt: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
