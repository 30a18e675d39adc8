#!/usr/bin/env bash
# The one privileged step: the system packages `make setup` needs (Makefile APT_PKGS: Icarus
# Verilog, the lz4 headers, ccache). Everything else (ci/setup.sh and after) runs as the
# user, so build/ and .venv/ stay the user's.
#   sudo ci/apt.sh          (in CI and, once, on a laptop)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
  echo "error: ci/apt.sh installs system packages: run it with sudo" >&2
  exit 2
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
