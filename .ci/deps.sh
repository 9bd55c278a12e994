#!/usr/bin/env bash
# Installs the Debian packages Tocha needs when they are missing (run as root, or through sudo).
# Called by `make`; safe to run repeatedly: it does nothing when everything is present.
set -euo pipefail
packages=(cmake pkg-config g++ make libluajit2-5.1-dev luajit2 libopenblas-dev libopenblas-openmp-dev
          libreadline-dev catch2 zlib1g-dev libpng-dev libjpeg62-turbo-dev dataset-fashion-mnist python3
          libopenmpi-dev openmpi-bin libdnnl-dev libfftw3-dev libhdf5-103-1)
# Optional extras (benchmark reference, REPL tests) are listed by `make deps-extra`.
if [ "${1:-}" = "--extra" ]; then packages+=(python3-torch); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "[deps] installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "[deps] need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq || true
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
