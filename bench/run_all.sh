#!/usr/bin/env bash
# Runs every benchmark of bench/ (1 and 2 threads) and prints their reports, for bench/README.md.
# Usage: bench/run_all.sh [build-dir]   (default: build). Set BENCH_CORETYPE_UNSET=1 to also run
# the BLAS-bound ones with OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE unset (OpenBLAS's own detection).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
tocha=$build/tocha
run() { echo "== $*"; "$tocha" "$@" 2>&1; echo; }
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-(unset)} OPENBLAS_L2_SIZE=${OPENBLAS_L2_SIZE:-(unset)}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in 1 2; do
  for b in overhead autograd optim mlp cnn norm lstm ops; do
    [ -f "$here/$b.lua" ] && run "$here/$b.lua" "$t"
  done
done
run "$here/mm.lua" "$build/bench/bench_mm_ref"
for t in 1 2; do run "$here/mm_bf16.lua" "$t"; done
for t in 1 2; do run "$here/cnn_epoch.lua" "$t" 0 12800; run "$here/cnn_epoch.lua" "$t" 1 12800; done
[ -f "$here/loader.lua" ] && run "$here/loader.lua"
for b in torch7_nngraph torch7_threads torch7_image; do [ -f "$here/$b.lua" ] && run "$here/$b.lua"; done
[ -x "$build/bench/bench_allreduce_ref" ] && run "$here/distributed.lua" "$build"
if [ "${BENCH_CORETYPE_UNSET:-0}" = 1 ]; then
  echo "### OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset"
  ( unset OPENBLAS_CORETYPE OPENBLAS_L2_SIZE
    run "$here/mm.lua" "$build/bench/bench_mm_ref"
    for t in 1 2; do for b in mlp cnn; do [ -f "$here/$b.lua" ] && run "$here/$b.lua" "$t"; done; done )
fi
