#!/usr/bin/env bash
# The prepared GPU check of issue 9, run on the GPU machine from the repo root (see
# ../shared/device/README.md): builds with CUDA for the local GPU, runs the CUDA tests (every CUDA
# op against the CPU result, allocator and runtime tests), the whole suite, and the GPU benchmark
# against PyTorch, writing logs to $OUT (at most 8 files):
#   env.log build.log test_cuda.log test_nn_suites.log test_all.log bench.log summary.txt
# test_nn_suites.log: the nn suites under TOCHA_TEST_DEVICE=cuda (cuda.nn_<suite>: every module call
# replayed on the GPU against the CPU, tests/lua/device/nn_device.lua); SKIP_NN_SUITES=1 skips them.
# bench_train.log: the MLP and CNN training steps on the GPU against PyTorch (bench/cuda_train.lua),
# then both processes' per-kernel GPU time per step (bench/cuda_profile.lua; SKIP_KPROF=1 skips it).
# PREBUILT=file.tgz skips the build: the tarball (tests/cuda/pack_prebuilt.sh) holds a build folder
# made elsewhere (the CUDA build of the development machine, which covers sm_80 and sm_90), unpacked
# to $BUILD_DIR; ctest's absolute paths are kept valid by linking the build's source root to this
# checkout when they differ. The embed and MPI example tests need tools the GPU machine lacks.
# ONLY=tests runs the tests alone, ONLY=bench the benchmarks alone: the whole check can pass the
# 600 s limit of one device call, so run it as two calls (the build or unpacking is redone).
# BENCH_FIRST=1 runs the benchmarks before the tests; CUDA_TESTS_S and NN_SUITES_S cap the two test
# runs (seconds, default 200 and 100) and DEADLINE_S all steps together, to fit both halves into
# one call.
# Usage: [OUT=dir] [TOCHA_CUDA_ARCH=90] [ONLY=tests|bench] [BENCH_FIRST=1] [SKIP_ALL_TESTS=1] [SKIP_NN_SUITES=1]
#        [ALL_TESTS_EXCLUDE=regex] [PREBUILT=build.tgz BUILD_DIR=build] bash tests/cuda/run_device_checks.sh
# (the slowest CPU-only suites are excluded from the whole-suite run by default, to fit the time.)
set -uo pipefail
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
ARCH=${TOCHA_CUDA_ARCH:-90}
JOBS=${JOBS:-$(nproc)}
BUILD=${BUILD_DIR:-build-gpu}
summary() { echo "$*" | tee -a "$OUT/summary.txt"; }
# DEADLINE_S=n: every step's time cap is cut to what is left of n seconds from the start, so the
# last steps are shortened (or given 1 s, under 10 s left) instead of the device call being killed.
started=$(date +%s)
cap() {
  local left=$(( started + ${DEADLINE_S:-100000} - $(date +%s) ))
  (( left < 10 )) && left=1  # (timeout 0 would mean no limit)
  echo $(( left < $1 ? left : $1 ))
}
: > "$OUT/summary.txt"
[ -f .devdeps/env.sh ] && source .devdeps/env.sh
{ date; nvidia-smi; nvcc --version; cmake --version | head -1; git log -1 --oneline 2>/dev/null; } > "$OUT/env.log" 2>&1
summary "gpu: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"

# Where the CUDA libraries live differs between machines (the toolkit's lib64, PyTorch's wheels):
# put the folder of each one the loader does not already know on LD_LIBRARY_PATH.
find_cuda_libs() {
  local lib dir
  for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcusolver.so.12 libcusparse.so.12 \
             libcudnn.so.9 libnccl.so.2 libgomp.so.1; do
    ldconfig -p | grep -q "$lib " && continue
    dir=$(find /usr/local /usr/lib /opt -name "$lib" -print -quit 2>/dev/null)
    if [ -n "$dir" ]; then export LD_LIBRARY_PATH=$(dirname "$dir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    else summary "missing library: $lib"; fi
  done
}
find_cuda_libs

t0=$(date +%s)
if [ -n "${PREBUILT:-}" ]; then
  # the prebuilt tree's ctest files and RUNPATHs name the folder it was built in
  root=$(sed -n 's/^# Source directory: //p' <(tar -xzOf "$PREBUILT" "$BUILD/CTestTestfile.cmake"))
  tar -xzf "$PREBUILT" > "$OUT/build.log" 2>&1 || { summary "unpack: FAILED"; exit 1; }
  if [ -n "$root" ] && [ "$root" != "$PWD" ] && [ ! -e "$root" ]; then mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"; fi
  ldd "$BUILD/tocha" "$BUILD/libtocha.so" "$BUILD/libtocha_nccl.so" >> "$OUT/build.log" 2>&1
  summary "build: prebuilt ($PREBUILT, source root $root); $(grep -c 'not found' "$OUT/build.log") libraries not found"
  grep 'not found' "$OUT/build.log" | sort -u | head -5 | while read -r l; do summary "  $l"; done
  # built from this checkout? (pack_prebuilt.sh stamps the commit and the uncommitted changes)
  if [ "$(head -1 "$BUILD/PREBUILT_STAMP" 2>/dev/null)" != "$(git rev-parse HEAD 2>/dev/null)" ]; then
    summary "  WARNING: the prebuilt tree is not from this commit: $(head -1 "$BUILD/PREBUILT_STAMP" 2>/dev/null)"
  fi
else
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
if ! { cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTOCHA_CUDA=ON \
         -DCMAKE_CUDA_ARCHITECTURES="$ARCH" && cmake --build "$BUILD" -j"$JOBS" --target tocha_exe tocha_tests; } > "$OUT/build.log" 2>&1; then
  summary "build: FAILED after $(( $(date +%s) - t0 ))s (see build.log)"
  tail -40 "$OUT/build.log"
  exit 1
fi
summary "build: ok in $(( $(date +%s) - t0 ))s (sm_$ARCH, -j$JOBS)"
# torch.distributed's plugins (issue 11): NCCL (needs NCCL; its process-group half needs MPI, which
# runs cuda.nccl_* under mpirun -np 1) and MPI. Absent ones make those tests say why they skip.
for plugin in tocha_nccl tocha_mpi; do
  if cmake --build "$BUILD" -j"$JOBS" --target "$plugin" >> "$OUT/build.log" 2>&1; then summary "plugin $plugin: built"
  else summary "plugin $plugin: not built (no NCCL/MPI found? see build.log)"; fi
done
fi

ONLY=${ONLY:-}
# Fail fast: a tocha that cannot start or see the GPU would waste the rest of the call.
if ! smoke=$("$BUILD/tocha" -e 'assert(torch.cuda.isAvailable(), torch.cuda.unavailableReason()) print(torch.cuda.getDeviceProperties(0).name)' 2>&1); then
  summary "smoke test: FAILED: $smoke"
  exit 1
fi
summary "smoke test: ok ($smoke)"
[ -d "$BUILD" ] || { summary "no build folder $BUILD"; exit 1; }
# Tests for the fake GPU stack (they replace LD_LIBRARY_PATH) and tests needing mpiexec when it is
# missing are not for this machine.
device_exclude='^cuda\.nn_|_cuda_dryrun$|fakegpu|^lua\.fuzz_cuda$'
command -v mpiexec > /dev/null || device_exclude+='|^cuda\.nccl_'
[ -x "$BUILD/tocha_tests" ] || device_exclude+='|^cpp\.'  # (pack_prebuilt.sh leaves it out)
# Every state ctest reports for a test that did not pass.
failed='\((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception|ILLEGAL|Child aborted|OTHER_FAULT|BUS_ERROR)[^)]*\)'
run_tests() {
  cd "$BUILD" || return
  t0=$(date +%s)
  # (cuda.lapack is here; the nn suites' cuda.nn_* run below, their CPU dry runs not at all. The
  # suites of the twelfth, thirteenth and sixteenth sessions' functions compare CUDA with CPU inside,
  # behind isAvailable.)
  timeout "$(cap "${CUDA_TESTS_S:-200}")" ctest -R 'lua\.cuda|lua\.amp|alloc|cuda|^lua\.(products|predicates|det|arrange|search_unique|pointwise_extra|pointwise_extra_grad|pointwise_rows|stats|stats_more|stats_edges|linalg_ns|linalg_extra|shape_views|index_extra|scatter_reduce|shape_random|autograd_functional|checkpoint|distributions.*|profiler|tensorboard|optim_swa|optim_objects_more|fft|fft_stft|func|sparse|sparse_mm|special|misc_pytorch.*|tensor_pytorch.*|onnx.*|data_transforms_tv.*|linalg_more)$' \
    -E "$device_exclude" -j6 --timeout 120 --output-on-failure \
    > "$OUT/test_cuda.log" 2>&1
  rc=$?
  summary "cuda tests: rc=$rc in $(( $(date +%s) - t0 ))s; $(grep -E 'tests passed|tests failed' "$OUT/test_cuda.log" | tail -1)"
  grep -E 'checked [0-9]+|SKIPPED|bit-identical|MLP:' "$OUT/test_cuda.log" | head -8 | while read -r l; do summary "  $l"; done
  grep -E "$failed" "$OUT/test_cuda.log" | head -12 | while read -r l; do summary "  $l"; done

  if [ "${SKIP_NN_SUITES:-0}" != 1 ]; then
    t0=$(date +%s)
    timeout "$(cap "${NN_SUITES_S:-100}")" ctest -R '^cuda\.nn_' -j"$JOBS" --timeout 90 --output-on-failure > "$OUT/test_nn_suites.log" 2>&1
    rc=$?
    summary "nn suites on CUDA (TOCHA_TEST_DEVICE=cuda): rc=$rc in $(( $(date +%s) - t0 ))s; $(grep -E 'tests passed|tests failed' "$OUT/test_nn_suites.log" | tail -1)"
    grep -E "$failed" "$OUT/test_nn_suites.log" | head -12 | while read -r l; do summary "  $l"; done
  fi

  if [ "${SKIP_ALL_TESTS:-0}" != 1 ]; then
    t0=$(date +%s)
    timeout "$(cap 240)" ctest -j"$JOBS" -E "${ALL_TESTS_EXCLUDE:-lua.cli|lua.memory|lua.fuzz|serialize_safety|$device_exclude}" \
      --output-on-failure > "$OUT/test_all.log" 2>&1
    summary "all tests: rc=$? in $(( $(date +%s) - t0 ))s; $(grep -E 'tests passed|tests failed' "$OUT/test_all.log" | tail -1)"
  fi
  cd ..
}

run_bench() {
  for b in cuda cuda_train; do
    log=$OUT/bench.log; [ "$b" = cuda_train ] && log=$OUT/bench_train.log
    t0=$(date +%s)
    timeout "$(cap 140)" "$BUILD/tocha" "bench/$b.lua" "$BUILD" > "$log" 2>&1
    summary "bench/$b.lua: rc=$? in $(( $(date +%s) - t0 ))s"
    cat "$log" >> "$OUT/summary.txt"
  done
  # Per-kernel GPU time of each training step, ours then PyTorch's (bench/cuda_profile.lua through the
  # CUPTI injection library), appended to bench_train.log: $OUT holds at most 8 files.
  kprof=$PWD/$BUILD/bench/libtocha_kprof.so
  if [ -f "$kprof" ] && [ "${SKIP_KPROF:-0}" != 1 ]; then
    t0=$(date +%s)
    CUDA_INJECTION64_PATH=$kprof timeout "$(cap 120)" "$BUILD/tocha" bench/cuda_profile.lua "$OUT/kprof.tmp" >> "$OUT/bench_train.log" 2>&1
    summary "bench/cuda_profile.lua: rc=$? in $(( $(date +%s) - t0 ))s (tables in bench_train.log)"
    { echo; echo "== per-kernel profiles (bench/cuda_profile.lua)"; cat "$OUT/kprof.tmp"; } >> "$OUT/bench_train.log" 2>&1
    rm -f "$OUT/kprof.tmp"
  fi
}

# BENCH_FIRST=1 runs the benchmarks before the tests (when the call may not have time for both).
case "$ONLY,${BENCH_FIRST:-0}" in
  tests,*) run_tests ;;
  bench,*) run_bench ;;
  ,1) run_bench; run_tests ;;
  *) run_tests; run_bench ;;
esac
cat "$OUT/summary.txt"
