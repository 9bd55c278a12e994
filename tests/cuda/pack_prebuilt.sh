#!/usr/bin/env bash
# Packs this machine's CUDA build for the GPU machine (tests/cuda/run_device_checks.sh PREBUILT=...):
# the binaries, libraries and ctest files of BUILD_DIR (default build), without objects and test
# outputs, gzipped to OUT_TGZ (default .gpucarry/build.tgz, a folder .git/info/exclude ignores).
# Building here and carrying the result saves the device time a CUDA build would take there.
# It then packs the Debian packages the tree links into .devdeps (tests/cuda/pack_devdeps.sh;
# SKIP_DEVDEPS=1 keeps the .devdeps there is): carry both.
# Usage: [BUILD_DIR=build] [OUT_TGZ=.gpucarry/build.tgz] bash tests/cuda/pack_prebuilt.sh
set -euo pipefail
BUILD=${BUILD_DIR:-build}
OUT_TGZ=${OUT_TGZ:-.gpucarry/build.tgz}
# The tarball must hold this checkout's build: Lua declares C symbols an older libtocha lacks, and
# the device time would go to a tocha that cannot start. Build first and stamp what was built.
log=$(mktemp)
cmake --build "$BUILD" -j"$(nproc)" > "$log" 2>&1 || { tail -30 "$log"; echo "pack_prebuilt: the build failed"; exit 1; }
rm -f "$log"
{ git rev-parse HEAD; git status --porcelain; } > "$BUILD/PREBUILT_STAMP"
mkdir -p "$(dirname "$OUT_TGZ")"
grep -qx "/$(dirname "$OUT_TGZ")/" .git/info/exclude 2>/dev/null || echo "/$(dirname "$OUT_TGZ")/" >> .git/info/exclude
# CUPTI for bench/cuda_profile.lua's libtocha_kprof.so (its RUNPATH includes $ORIGIN), in case the
# GPU machine's toolkit lacks it
if [ -f "$BUILD/bench/libtocha_kprof.so" ]; then
  cupti=$(ldd "$BUILD/bench/libtocha_kprof.so" | awk '/libcupti/ {print $3}')
  # (once copied, the RUNPATH's $ORIGIN finds that copy: nothing to do)
  if [ -n "$cupti" ] && [ "$(readlink -f "$cupti")" != "$(readlink -f "$BUILD/bench/$(basename "$cupti")")" ]; then
    cp -L "$cupti" "$BUILD/bench/"
  fi
fi
# test outputs are excluded but their folders kept: ctest runs some tests inside them. The C++ test
# binary is left out: it holds a second copy of every kernel (100 MB, over the 64 MiB a device call
# carries) and its tests run on the CPU in CI (the device run skips the cpp.* tests without it).
tar -czf "$OUT_TGZ" --exclude="$BUILD/tocha_tests" --exclude=CMakeFiles --exclude='*.o' --exclude='*.tch' --exclude=Testing \
  --exclude="$BUILD/tests/examples/*" --exclude="$BUILD/tests/data_readers/*" --exclude="$BUILD/tests/trainer/*" "$BUILD"
ls -la "$OUT_TGZ"
[ -n "${SKIP_DEVDEPS:-}" ] || BUILD_DIR="$BUILD" bash "$(dirname "$0")/pack_devdeps.sh"
