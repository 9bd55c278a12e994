#!/usr/bin/env bash
# Packs into .devdeps/ (../shared/device/pack.sh) the Debian packages whose libraries the build in
# BUILD_DIR (default build) links, so the GPU machine, which has no package registry, can load the
# tree tests/cuda/pack_prebuilt.sh carries there: LuaJIT, OpenBLAS, oneDNN and its OpenCL loader,
# libpng, libjpeg... found by ldd, not listed by hand, so a new dependency cannot be forgotten.
# glibc, the C++ runtime and OpenMP are the GPU machine's own; CUDA's libraries are not Debian's.
# Usage: [BUILD_DIR=build] bash tests/cuda/pack_devdeps.sh
set -euo pipefail
BUILD=${BUILD_DIR:-build}
PACK=${PACK_SCRIPT:-../shared/device/pack.sh}
base='^(libc6|libstdc\+\+6|libgcc-s1|libgomp1)$'
pkgs=$(for bin in "$BUILD/tocha" "$BUILD/libtocha.so"; do ldd "$bin"; done | awk '/=> \// {print $3}' | sort -u |
  while read -r lib; do
    dpkg -S "$(readlink -f "$lib")" 2>/dev/null || dpkg -S "$lib" 2>/dev/null || true
  done | cut -d: -f1 | sort -u | grep -Ev "$base" || true)
# FFTW is opened with dlopen on the first torch.fft call (Note [FFTW opened on first use]): ldd
# cannot see it.
pkgs="$pkgs"$'\n'"libfftw3-single3"$'\n'"libfftw3-double3"
echo "pack_devdeps: ${pkgs//$'\n'/ }"
# shellcheck disable=SC2086  # one package name per word
bash "$PACK" $pkgs
# The prebuilt tree needs runtime libraries only, and what travels must stay under 64 MiB with the
# build's tarball: drop pack.sh's headers and Catch2, the OpenMP OpenBLAS (env.sh puts the pthread
# one, same soname, on the path) and Debian's LuaJIT when LuaJIT2 (what ldd found here) is packed.
cd .devdeps/debs
rm -f catch2_*.deb ./*-dev_*.deb libopenblas0-openmp_*.deb
if ls libluajit2-5.1-2_*.deb > /dev/null 2>&1; then rm -f libluajit-5.1-2_*.deb libluajit-5.1-common_*.deb; fi
cd ../..
du -sh .devdeps
